import { describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { objectName, validateAll } from './kubernetes-schema.js';
import {
  all,
  componentOf,
  configMap,
  container,
  effectiveEnv,
  envNames,
  kubectl,
  matches,
  named,
  ofKind,
  type Overlay,
  OVERLAYS,
  podSpec,
  quarryDeployments,
  renderOverlays,
} from './kustomize-support.js';
import { deployDir, type K8sObject, renderKustomize } from './support.js';
import {
  GATEWAY_ROUTES,
  GRPC_CALLERS,
  GRPC_SERVICES,
  MIGRATION_ENV,
  MIGRATION_SECRETS,
  OPTIONAL_SECRET_KEYS,
  POD_LABELS,
  SECRET_KEYS,
  SERVICE_NAMES,
  SERVICES,
} from './spec.js';

// The kustomize overlays, rendered by `kubectl kustomize` exactly as `kubectl apply -k` would,
// checked against the Kubernetes schemas and against deploy-spec: names, ports, probes, env,
// secrets, labels, policies. These tests are the specification of deploy/base and the overlays;
// what only dev or only prod has is in kustomize-dev.test.ts and kustomize-prod.test.ts.

renderOverlays('dev', 'prod');

if (!kubectl) {
  it.skip('kubectl is not on PATH: the kustomize overlays were not rendered or checked (install kubectl to run these checks)', () =>
    undefined);
} else {
  describe('base', () => {
    it('renders on its own, without a namespace or any Secret, into valid objects', () => {
      const base = renderKustomize(join(deployDir, 'base'));
      expect(validateAll(base, 'base')).toEqual([]);
      expect(base.filter((o) => o.kind === 'Secret' || o.kind === 'Namespace' || o.metadata?.namespace)).toEqual([]);
    });
  });

  describe.each(Object.keys(OVERLAYS) as Overlay[])('overlays/%s', (overlay) => {
    it('renders objects that all validate against the Kubernetes schemas', () => {
      expect(all(overlay).length).toBeGreaterThan(20);
      expect(validateAll(all(overlay), `overlays/${overlay}`)).toEqual([]);
    });

    it(`puts every namespaced object in namespace ${OVERLAYS[overlay]} and creates that namespace`, () => {
      expect(named<K8sObject>(overlay, 'Namespace', OVERLAYS[overlay])).toBeDefined();
      const misplaced = all(overlay)
        .filter((o) => o.kind !== 'Namespace' && o.metadata?.namespace !== OVERLAYS[overlay])
        .map(objectName);
      expect(misplaced).toEqual([]);
    });

    it('has a Deployment and a Service per service, with the spec ports, probes and pod labels', () => {
      expect(
        quarryDeployments(overlay)
          .map((d) => d.metadata!.name)
          .sort(),
      ).toEqual([...SERVICE_NAMES].sort());
      for (const name of SERVICE_NAMES) {
        const spec = SERVICES[name];
        const deployment = named<IDeployment>(overlay, 'Deployment', name);
        const labels = deployment.spec!.template.metadata!.labels!;
        expect({ name, labels: POD_LABELS.filter((l) => !labels[l]) }).toEqual({ name, labels: [] });
        expect(componentOf(labels)).toBe(name);
        expect(labels['app.kubernetes.io/part-of']).toBe('quarry');
        expect(matches(deployment.spec!.selector.matchLabels, labels)).toBe(true);

        const c = container(deployment);
        expect(c.ports?.find((p) => p.name === spec.port.name)?.containerPort).toBe(spec.port.number);
        if (spec.metricsPort) expect(c.ports?.some((p) => p.containerPort === spec.metricsPort)).toBe(true);
        if (spec.probes === 'grpc') {
          for (const probe of [c.livenessProbe, c.readinessProbe]) expect(probe?.grpc?.port).toBe(spec.port.number);
        } else {
          const paths = spec.probes === 'http' ? ['/healthz', '/readyz'] : ['/metrics', '/metrics'];
          expect([c.livenessProbe?.httpGet?.path, c.readinessProbe?.httpGet?.path]).toEqual(paths);
          expect([c.livenessProbe?.httpGet?.port, c.readinessProbe?.httpGet?.port]).toEqual([
            spec.port.name,
            spec.port.name,
          ]);
        }

        const service = named<IService>(overlay, 'Service', name);
        expect(service.spec!.type ?? 'ClusterIP').toBe('ClusterIP');
        expect(matches(service.spec!.selector, labels)).toBe(true);
        expect(service.spec!.ports?.find((p) => p.name === spec.port.name)?.port).toBe(spec.port.number);
        for (const port of service.spec!.ports ?? []) expect(c.ports?.map((p) => p.name)).toContain(port.targetPort);
      }
    });

    it('gives every service the spec environment, secrets from the spec keys', () => {
      for (const name of SERVICE_NAMES) {
        const c = container(named<IDeployment>(overlay, 'Deployment', name));
        const missing = SERVICES[name].env.filter((v) => !effectiveEnv(overlay, c).has(v));
        expect({ name, missing }).toEqual({ name, missing: [] });
        for (const [variable, key] of Object.entries(SERVICES[name].secrets)) {
          const ref = c.env?.find((e) => e.name === variable)?.valueFrom?.secretKeyRef;
          expect({ name, variable, key: ref?.key, optional: ref?.optional ?? false }).toEqual({
            name,
            variable,
            key,
            optional: OPTIONAL_SECRET_KEYS.includes(key),
          });
        }
        const env = Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));
        // Every service binds HOST, its /metrics included: loopback would hide them from probes and scrapers.
        expect(env.HOST).toBe('0.0.0.0');
        if (SERVICES[name].probes !== 'metrics') expect(env.PORT).toBe(String(SERVICES[name].port.number));
        expect(env.METRICS_PORT).toBe(String(SERVICES[name].metricsPort));
      }
    });

    it('routes the gateway to every gRPC service and the services to each other by Service name', () => {
      const env = (svc: string) =>
        Object.fromEntries(
          (container(named<IDeployment>(overlay, 'Deployment', svc)).env ?? []).map((e) => [e.name, e.value]),
        );
      const routes = Object.fromEntries(
        env('gateway')
          .QUARRY_SERVICES!.split(',')
          .map((pair) => pair.split('=') as [string, string]),
      );
      expect(routes).toEqual(
        Object.fromEntries(
          Object.entries(GATEWAY_ROUTES).map(([proto, svc]) => [proto, `${svc}:${SERVICES[svc].port.number}`]),
        ),
      );
      expect(env('plan-engine').ARTIFACT_STORE_ADDRESS).toBe('artifact-store:50052');
      expect(env('extraction').ARTIFACT_STORE_ADDRESS).toBe('artifact-store:50052');
      expect(env('search').ARTIFACT_STORE_ADDRESS).toBe('artifact-store:50052');
      expect(env('artifact-store').PLAN_ENGINE_ADDRESS).toBe('plan-engine:50051');
      const engines = configMap(
        overlay,
        container(named<IDeployment>(overlay, 'Deployment', 'search')).envFrom![0]!.configMapRef!.name!,
      )!.data!;
      expect(engines.OPENSEARCH_URL).toMatch(/^https?:\/\//);
      expect(engines.QDRANT_URL).toMatch(/^https?:\/\//);
      expect(engines.KAFKA_BROKERS).toMatch(/^[^,\s]+:\d+(,[^,\s]+:\d+)*$/);
    });

    it('runs the migrations as a Job of the cli image with the admin URL and both role passwords', () => {
      const job = named<IJob>(overlay, 'Job', 'migrate');
      const c = container(job);
      expect(c.image).toMatch(/quarry\/cli(:|@)/);
      expect([...(c.command ?? []), ...(c.args ?? [])]).toEqual(['migrate']);
      expect(MIGRATION_ENV.filter((v) => !envNames(c).includes(v))).toEqual([]);
      for (const [variable, key] of Object.entries(MIGRATION_SECRETS)) {
        expect(c.env?.find((e) => e.name === variable)?.valueFrom?.secretKeyRef?.key).toBe(key);
      }
      expect(podSpec(job).restartPolicy).toBe('OnFailure');
    });

    it('resolves every ConfigMap and Secret reference', () => {
      const secrets = ofKind<ISecret>(overlay, 'Secret');
      const problems: string[] = [];
      const pods = [...quarryDeployments(overlay), named<IJob>(overlay, 'Job', 'migrate')];
      for (const workload of pods) {
        for (const c of podSpec(workload).containers) {
          for (const source of c.envFrom ?? []) {
            if (source.configMapRef && !configMap(overlay, source.configMapRef.name!))
              problems.push(`${workload.metadata!.name}: no ConfigMap ${source.configMapRef.name}`);
            if (source.secretRef)
              problems.push(`${workload.metadata!.name}: takes a whole Secret (envFrom), name the keys instead`);
          }
          for (const e of c.env ?? []) {
            const cmRef = e.valueFrom?.configMapKeyRef;
            if (cmRef && configMap(overlay, cmRef.name!)?.data?.[cmRef.key] === undefined)
              problems.push(`${workload.metadata!.name}: ${e.name}: no ConfigMap key ${cmRef.name}/${cmRef.key}`);
            const ref = e.valueFrom?.secretKeyRef;
            if (!ref) continue;
            if (!SECRET_KEYS.includes(ref.key))
              problems.push(`${workload.metadata!.name}: ${e.name}: key ${ref.key} is not a spec Secret key`);
            if (overlay === 'prod') {
              if (ref.name !== 'quarry-secrets')
                problems.push(`${workload.metadata!.name}: ${e.name}: Secret ${ref.name} is not quarry-secrets`);
            } else {
              const secret = secrets.find((s) => s.metadata?.name === ref.name);
              if (!secret) problems.push(`${workload.metadata!.name}: ${e.name}: no Secret ${ref.name}`);
              else if (!Object.hasOwn({ ...secret.data, ...secret.stringData }, ref.key))
                problems.push(`${workload.metadata!.name}: ${e.name}: Secret ${ref.name} has no key ${ref.key}`);
            }
          }
        }
      }
      expect(problems).toEqual([]);
    });

    it('lets only the gateway be reached from anywhere; gRPC services from callers and internal clients; metrics from scrapers', () => {
      const policies = ofKind<INetworkPolicy>(overlay, 'NetworkPolicy');
      const policyFor = (svc: string) => {
        const found = policies.filter((p) => componentOf(p.spec!.podSelector!.matchLabels) === svc);
        expect({ svc, policies: found.length }).toEqual({ svc, policies: 1 });
        expect(found[0]!.spec!.policyTypes).toEqual(['Ingress']);
        return found[0]!.spec!.ingress ?? [];
      };
      const scraperRule = (port: number) => ({
        from: [
          { podSelector: { matchLabels: { 'quarry.dev/metrics-scraper': 'true' } } },
          { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
        ],
        ports: [{ port, protocol: 'TCP' }],
      });
      for (const svc of GRPC_SERVICES) {
        const [callers, ...rest] = policyFor(svc);
        expect(callers!.ports).toEqual([{ port: SERVICES[svc].port.number, protocol: 'TCP' }]);
        const [quarryPeers, internal] = callers!.from!;
        expect(quarryPeers!.namespaceSelector).toBeUndefined();
        expect(quarryPeers!.podSelector!.matchExpressions).toEqual([
          { key: 'app.kubernetes.io/component', operator: 'In', values: GRPC_CALLERS },
        ]);
        expect(internal).toEqual({ podSelector: { matchLabels: { 'quarry.dev/internal-client': 'true' } } });
        expect(rest).toEqual([scraperRule(SERVICES[svc].metricsPort)]);
      }
      expect(policyFor('gateway')).toEqual([
        { ports: [{ port: 8080, protocol: 'TCP' }] },
        scraperRule(SERVICES.gateway.metricsPort),
      ]);
      expect(policyFor('indexer')).toEqual([scraperRule(SERVICES.indexer.metricsPort)]);
    });

    it('has a PodDisruptionBudget for every service and scrape annotations where /metrics is served', () => {
      const pdbs = ofKind<IPodDisruptionBudget>(overlay, 'PodDisruptionBudget');
      for (const d of quarryDeployments(overlay)) {
        const labels = d.spec!.template.metadata!.labels;
        expect({
          d: d.metadata!.name,
          pdbs: pdbs.filter((p) => matches(p.spec!.selector!.matchLabels, labels)).length,
        }).toEqual({ d: d.metadata!.name, pdbs: 1 });
        const metricsPort = SERVICES[d.metadata!.name as keyof typeof SERVICES].metricsPort;
        const annotations = d.spec!.template.metadata!.annotations ?? {};
        expect(annotations['prometheus.io/scrape']).toBe(metricsPort ? 'true' : undefined);
        if (metricsPort)
          expect([annotations['prometheus.io/port'], annotations['prometheus.io/path']]).toEqual([
            String(metricsPort),
            '/metrics',
          ]);
      }
    });

    it('runs every Quarry container non-root, read-only, without capabilities, with requests and a memory limit', () => {
      for (const w of [...quarryDeployments(overlay), named<IJob>(overlay, 'Job', 'migrate')]) {
        const pod = podSpec(w);
        expect({ w: w.metadata!.name, pod: pod.securityContext }).toMatchObject({
          w: w.metadata!.name,
          pod: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } },
        });
        expect(pod.automountServiceAccountToken).toBe(false);
        for (const c of pod.containers) {
          expect(c.securityContext).toEqual({
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ['ALL'] },
          });
          expect(c.resources?.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
          expect(c.resources?.limits?.memory).toEqual(expect.any(String));
        }
      }
    });
  });
}
