import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import {
  container,
  kubectl,
  matches,
  named,
  ofKind,
  podSpec,
  quarryDeployments,
  renderOverlays,
} from './kustomize-support.js';
import { deployDir, type K8sObject, readYamlFile, renderKustomize } from './support.js';
import { GRPC_SERVICES, IMAGE_TARGETS } from './spec.js';

// What only the prod overlay has (the checks every overlay passes are in kustomize.test.ts).

renderOverlays('prod');

if (!kubectl) {
  it.skip('kubectl is not on PATH: the kustomize overlays were not rendered or checked (install kubectl to run these checks)', () =>
    undefined);
} else {
  describe('overlays/prod', () => {
    const version = JSON.parse(readFileSync(join(deployDir, '..', 'package.json'), 'utf8')).version as string;

    it(`pins every image to a registry and version ${version}`, () => {
      const images = [...quarryDeployments('prod'), named<IJob>('prod', 'Job', 'migrate')].map(
        (w) => container(w).image!,
      );
      for (const image of images)
        expect(image).toMatch(/^[a-z0-9.-]+\.[a-z]{2,}(:\d+)?\/quarry\/[a-z-]+(:[\w.-]+|@sha256:[0-9a-f]{64})$/);
      expect(images.filter((i) => i.endsWith(':latest'))).toEqual([]);
      expect(images.map((i) => i.replace(/^[^/]+\//, '')).sort()).toEqual(
        Object.values(IMAGE_TARGETS)
          .map((i) => `${i}:${version}`)
          .sort(),
      );
    });

    it('runs at least two of everything that serves requests: HPAs for gateway and indexer, replicas for the gRPC services', () => {
      const hpa = (name: string) => named<IHorizontalPodAutoscaler>('prod', 'HorizontalPodAutoscaler', name).spec!;
      expect(hpa('gateway')).toMatchObject({ minReplicas: 2, scaleTargetRef: { kind: 'Deployment', name: 'gateway' } });
      expect(hpa('indexer')).toMatchObject({ minReplicas: 2, scaleTargetRef: { kind: 'Deployment', name: 'indexer' } });
      expect(hpa('indexer').maxReplicas).toBeLessThanOrEqual(6); // the dev/prod topic's partitions
      for (const svc of ['gateway', 'indexer'])
        expect(named<IDeployment>('prod', 'Deployment', svc).spec!.replicas).toBeUndefined();
      for (const svc of GRPC_SERVICES)
        expect(named<IDeployment>('prod', 'Deployment', svc).spec!.replicas).toBeGreaterThanOrEqual(2);
    });

    it('spreads every Deployment across zones and nodes', () => {
      for (const d of quarryDeployments('prod')) {
        const constraints = podSpec(d).topologySpreadConstraints ?? [];
        expect({ d: d.metadata!.name, keys: constraints.map((c) => c.topologyKey) }).toEqual({
          d: d.metadata!.name,
          keys: ['topology.kubernetes.io/zone', 'kubernetes.io/hostname'],
        });
        for (const c of constraints) {
          expect(matches(c.labelSelector!.matchLabels, d.spec!.template.metadata!.labels)).toBe(true);
          expect(c.matchLabelKeys).toContain('app.kubernetes.io/component');
        }
      }
    });

    it('creates no Secret: every reference names the external quarry-secrets', () => {
      expect(ofKind('prod', 'Secret')).toEqual([]);
    });

    it('exposes only /mcp and the OAuth endpoints of the gateway through the Ingress, trusting the proxy and pinning the host', () => {
      const [ingress, ...others] = ofKind<IIngress>('prod', 'Ingress');
      expect(others).toEqual([]);
      const rules = ingress!.spec!.rules!;
      expect(
        rules.flatMap((r) =>
          r.http!.paths.map((p) => [p.path, p.backend.service?.name, p.backend.service?.port?.name]),
        ),
      ).toEqual([
        ['/mcp', 'gateway', 'http'],
        ['/.well-known', 'gateway', 'http'],
        ['/oauth', 'gateway', 'http'],
      ]);
      expect(ingress!.spec!.tls?.[0]?.hosts).toEqual(rules.map((r) => r.host));
      const config = ofKind<IConfigMap>('prod', 'ConfigMap').find((c) =>
        c.metadata!.name!.startsWith('quarry-config-'),
      )!.data!;
      expect(config.QUARRY_TRUST_PROXY).toBe('true');
      const inCluster = ['gateway', 'gateway.quarry', 'gateway.quarry.svc', 'gateway.quarry.svc.cluster.local'];
      expect(config.QUARRY_ALLOWED_HOSTS!.split(',').sort()).toEqual(
        [...rules.map((r) => r.host), ...inCluster].sort(),
      );
      // The embedded authorization server's issuer is the public host; the services fetch its
      // keys from the gateway Service, which the NetworkPolicy leaves open on its HTTP port.
      expect(config.QUARRY_PUBLIC_URL).toBe(`https://${rules[0]!.host}`);
      expect(config.QUARRY_SERVICE_TOKEN_ISSUER).toBe(config.QUARRY_PUBLIC_URL);
      expect(config.QUARRY_SERVICE_TOKEN_JWKS_URL).toBe('http://gateway.quarry.svc.cluster.local:8080/oauth/jwks');
    });

    it('includes the monitoring component: ServiceMonitor, the alert rules of deploy/prometheus and the dashboard ConfigMap', () => {
      const [rule] = readYamlFile(join(deployDir, 'prometheus', 'quarry-rules.yaml')) as K8sObject[];
      expect(named<K8sObject>('prod', 'PrometheusRule', 'quarry').spec).toEqual(rule!.spec);
      const monitor = named<K8sObject & { spec: { endpoints: { port: string; path: string }[] } }>(
        'prod',
        'ServiceMonitor',
        'quarry',
      );
      expect(monitor.spec.endpoints.map((e) => [e.port, e.path])).toEqual([['metrics', '/metrics']]);
      const dashboards = named<IConfigMap>('prod', 'ConfigMap', 'quarry-grafana-dashboards');
      expect(dashboards.metadata!.labels!.grafana_dashboard).toBe('1');
      expect(dashboards.data!['quarry-overview.json']).toBe(
        readFileSync(join(deployDir, 'grafana', 'quarry-overview.json'), 'utf8'),
      );
    });

    it('takes the signing keys from a Secret with the oauth-signing-keys component: mounted into the gateway only', () => {
      // prod plus the component, as an operator's overlay on top of it would be.
      const dir = mkdtempSync(join(tmpdir(), 'quarry-kustomize-'));
      const up = (path: string) => relative(dir, join(deployDir, path));
      writeFileSync(
        join(dir, 'kustomization.yaml'),
        [
          'apiVersion: kustomize.config.k8s.io/v1beta1',
          'kind: Kustomization',
          `resources: [${up('overlays/prod')}]`,
          `components: [${up('overlays/components/oauth-signing-keys')}]`,
        ].join('\n'),
      );
      let objects: K8sObject[];
      try {
        objects = renderKustomize(dir);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      const deployment = (name: string) =>
        objects.find((o) => o.kind === 'Deployment' && o.metadata?.name === name) as unknown as IDeployment;
      const gateway = deployment('gateway');
      expect(podSpec(gateway).volumes).toContainEqual({
        name: 'oauth-signing-keys',
        secret: { secretName: 'quarry-oauth-signing-keys', items: [{ key: 'jwks.json', path: 'jwks.json' }] },
      });
      expect(container(gateway).volumeMounts).toContainEqual({
        name: 'oauth-signing-keys',
        mountPath: '/etc/quarry/oauth-signing-keys',
        readOnly: true,
      });
      expect(container(gateway).env).toContainEqual({
        name: 'QUARRY_OAUTH_SIGNING_KEYS_FILE',
        value: '/etc/quarry/oauth-signing-keys/jwks.json',
      });
      for (const svc of GRPC_SERVICES) expect(JSON.stringify(deployment(svc))).not.toContain('oauth-signing-keys');
      expect(JSON.stringify(named<IDeployment>('prod', 'Deployment', 'gateway'))).not.toContain('oauth-signing-keys');
    });
  });
}
