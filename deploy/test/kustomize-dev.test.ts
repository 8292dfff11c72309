import { describe, expect, it } from '@jest/globals';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import { container, kubectl, named, ofKind, quarryDeployments, renderOverlays } from './kustomize-support.js';
import { IMAGE_TARGETS, SECRET_KEYS } from './spec.js';

// What only the dev overlay has (the checks every overlay passes are in kustomize.test.ts).

renderOverlays('dev');

if (!kubectl) {
  it.skip('kubectl is not on PATH: the kustomize overlays were not rendered or checked (install kubectl to run these checks)', () =>
    undefined);
} else {
  describe('overlays/dev', () => {
    it('runs one replica of each, without autoscaling, on local quarry/<svc>:dev images', () => {
      for (const d of quarryDeployments('dev'))
        expect({ d: d.metadata!.name, replicas: d.spec!.replicas }).toEqual({ d: d.metadata!.name, replicas: 1 });
      expect(ofKind('dev', 'HorizontalPodAutoscaler')).toEqual([]);
      const images = [...quarryDeployments('dev'), named<IJob>('dev', 'Job', 'migrate')]
        .map((w) => container(w).image)
        .sort();
      expect(images).toEqual(
        Object.values(IMAGE_TARGETS)
          .map((i) => `${i}:dev`)
          .sort(),
      );
    });

    it('logs at debug level and generates the Secret with every spec key (placeholders)', () => {
      const config = ofKind<IConfigMap>('dev', 'ConfigMap').find((c) =>
        c.metadata!.name!.startsWith('quarry-config-'),
      )!;
      expect(config.data!.LOG_LEVEL).toBe('debug');
      const [secret, ...others] = ofKind<ISecret>('dev', 'Secret');
      expect(others).toEqual([]);
      expect(secret!.metadata!.name).toMatch(/^quarry-secrets-/);
      expect(Object.keys(secret!.data!).sort()).toEqual([...SECRET_KEYS].sort());
      expect(Buffer.from(secret!.data!['identity-key']!, 'base64').toString().length).toBeGreaterThanOrEqual(32);
    });

    it('brings its own development PostgreSQL, Kafka, OpenSearch and Qdrant', () => {
      for (const dep of ['postgres', 'kafka', 'opensearch', 'qdrant']) {
        expect(named<IDeployment>('dev', 'Deployment', dep).spec!.replicas).toBe(1);
        expect(named<IService>('dev', 'Service', dep)).toBeDefined();
      }
    });
  });
}
