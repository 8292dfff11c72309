import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { parse } from 'yaml';
import { hasPath, mergeValues, valuesPaths } from './helm-values.js';
import { validateAll } from './kubernetes-schema.js';
import { GRPC_SERVICES } from './spec.js';
import {
  chartDir,
  deployDir,
  fromRepo,
  isHelmValues,
  type K8sObject,
  listFiles,
  onPath,
  parseYamlDocuments,
  readYamlFile,
  repoRoot,
  run,
} from './support.js';

// The Helm chart without a helm binary: every `.Values` path a template reads exists in
// values.yaml, values.yaml and every values file we ship validate against values.schema.json,
// Chart.yaml is a v2 chart of the repository's version, and its alerts are deploy/prometheus's
// (charts/quarry/files/quarry-rules.yaml is a copy: Helm cannot read files outside the chart).
// With helm on PATH, `helm lint` and `helm template | validate` run too.

// ajv-formats is CommonJS with `exports.default`; under NodeNext its default import is the module.
const addFormats = ((addFormatsPlugin as unknown as { default?: typeof addFormatsPlugin }).default ??
  addFormatsPlugin) as unknown as (ajv: Ajv) => Ajv;

const readText = (path: string) => readFileSync(path, 'utf8');
const values = parse(readText(join(chartDir, 'values.yaml'))) as Record<string, unknown>;
const templateFiles = listFiles(join(chartDir, 'templates'), (name) => /\.(ya?ml|tpl|txt)$/.test(name));

/** values.schema.json compiled the way Helm reads it (JSON Schema draft-07, formats on). */
function compileSchema(): ValidateFunction {
  const schema = JSON.parse(readText(join(chartDir, 'values.schema.json'))) as Record<string, unknown>;
  const ajv = addFormats(new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }));
  return ajv.compile(schema);
}
const validateValues = compileSchema();
const schemaErrors = (v: unknown): string[] =>
  validateValues(v)
    ? []
    : (validateValues.errors ?? []).map(
        (e) =>
          `${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? `: ${e.params.additionalProperty}` : ''}`,
      );

describe('charts/quarry', () => {
  it('Chart.yaml is a v2 application chart named quarry at the repository version', () => {
    const chart = parse(readText(join(chartDir, 'Chart.yaml'))) as Record<string, unknown>;
    const version = (JSON.parse(readText(join(repoRoot, 'package.json'))) as { version: string }).version;
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'quarry', type: 'application' });
    expect(chart.version).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
    expect(chart.appVersion).toBe(version);
  });

  it('has templates, NOTES.txt and a helm test', () => {
    const names = templateFiles.map((f) => fromRepo(f));
    expect(names).toContain('charts/quarry/templates/NOTES.txt');
    expect(names.some((n) => n.startsWith('charts/quarry/templates/tests/'))).toBe(true);
    expect(templateFiles.length).toBeGreaterThan(5);
  });

  it('every .Values path used by a template or NOTES.txt exists in values.yaml', () => {
    const missing = templateFiles.flatMap((file) =>
      valuesPaths(readText(file))
        .filter((path) => !hasPath(values, path))
        .map((path) => `${fromRepo(file)}: .Values.${path.join('.')}`),
    );
    expect(missing).toEqual([]);
    // The scan itself found something to check in every template that reads values.
    expect(templateFiles.reduce((n, f) => n + valuesPaths(readText(f)).length, 0)).toBeGreaterThan(30);
  });

  it('values.yaml validates against values.schema.json', () => {
    expect(schemaErrors(values)).toEqual([]);
  });

  // Every values file we ship, merged over values.yaml as `helm install -f` would.
  const valuesFiles = [
    join(chartDir, 'ci', 'test-values.yaml'),
    ...listFiles(join(chartDir, 'ci'), isHelmValues).filter((f) => !f.endsWith('test-values.yaml')),
    ...listFiles(deployDir, isHelmValues, ['node_modules', 'test']),
  ];
  it.each(valuesFiles.map((f) => [fromRepo(f), f]))(
    '%s merged over values.yaml validates against the schema',
    (_name, file) => {
      const [override] = readYamlFile(file);
      expect(schemaErrors(mergeValues(values, override))).toEqual([]);
    },
  );

  it('the schema rejects values of the wrong type or name (the check can fail)', () => {
    expect(schemaErrors(mergeValues(values, { gateway: { replicas: 'two' } })).join()).toMatch(
      /\/gateway\/replicas must be integer/,
    );
    expect(schemaErrors(mergeValues(values, { gatewy: {} })).join()).toMatch(
      /must NOT have additional properties: gatewy/,
    );
    expect(schemaErrors(mergeValues(values, { opensearch: { url: 'opensearch:9200' } })).join()).toMatch(
      /\/opensearch\/url/,
    );
  });

  it('renders the alerts of deploy/prometheus/quarry-rules.yaml: the chart ships an identical copy', () => {
    const ours = readText(join(deployDir, 'prometheus', 'quarry-rules.yaml'));
    expect(readText(join(chartDir, 'files', 'quarry-rules.yaml'))).toBe(ours);
    expect(readText(join(chartDir, 'templates', 'prometheusrule.yaml'))).toMatch(
      /\.Files\.Get "files\/quarry-rules\.yaml"/,
    );
    if (onPath('helm')) {
      const rule = helmTemplate(['--set', 'metrics.prometheusRule.enabled=true']).find(
        (o) => o.kind === 'PrometheusRule',
      );
      expect(rule?.spec).toEqual((parse(ours) as K8sObject).spec);
    }
  });
});

function helmTemplate(extra: readonly string[] = []): K8sObject[] {
  const out = run('helm', [
    'template',
    'quarry',
    chartDir,
    '--namespace',
    'quarry',
    '-f',
    join(chartDir, 'ci', 'test-values.yaml'),
    ...extra,
  ]);
  return parseYamlDocuments(out, 'helm template charts/quarry') as K8sObject[];
}

if (onPath('helm')) {
  describe('charts/quarry with helm', () => {
    it('passes helm lint on the defaults and on ci/test-values.yaml', () => {
      run('helm', ['lint', chartDir]);
      run('helm', ['lint', chartDir, '-f', join(chartDir, 'ci', 'test-values.yaml')]);
    });

    it('renders ci/test-values.yaml into objects that all validate against the Kubernetes schemas', () => {
      const objects = helmTemplate();
      expect(objects.length).toBeGreaterThan(20);
      expect(validateAll(objects, 'helm template')).toEqual([]);
    });

    it('gives the gateway its OAuth issuer: the ingress host by default, or an external authorization server', () => {
      const gatewayConfig = (objects: K8sObject[]) =>
        (
          objects.find((o) => o.kind === 'ConfigMap' && /gateway/.test(o.metadata?.name ?? '')) as unknown as {
            data: Record<string, string>;
          }
        ).data;
      const embedded = gatewayConfig(helmTemplate());
      expect(embedded).toMatchObject({
        QUARRY_PUBLIC_URL: 'https://quarry.example.com',
        QUARRY_OAUTH_ACCESS_TOKEN_TTL: '1h',
      });
      expect(embedded).not.toHaveProperty('QUARRY_OAUTH_ISSUER');
      const external = gatewayConfig(
        helmTemplate([
          '--set',
          'gateway.oauth.issuer=https://sso.example.com/realms/quarry',
          '--set',
          'gateway.oauth.audience=quarry-api',
          '--set',
          'gateway.oauth.publicUrl=https://mcp.example.com',
        ]),
      );
      expect(external).toMatchObject({
        QUARRY_PUBLIC_URL: 'https://mcp.example.com',
        QUARRY_OAUTH_ISSUER: 'https://sso.example.com/realms/quarry',
        QUARRY_OAUTH_AUDIENCE: 'quarry-api',
        QUARRY_OAUTH_EMAIL_CLAIM: 'email',
        QUARRY_OAUTH_ORG_CLAIM: 'quarry_org',
      });
      expect(schemaErrors(mergeValues(values, { gateway: { oauth: { issuer: 'not a url' } } })).join()).toMatch(
        /\/gateway\/oauth\/issuer must match pattern/,
      );
    });

    it('lets the gRPC services accept service-account tokens from the embedded server, its keys fetched in the cluster', () => {
      const configOf = (objects: K8sObject[], component: string) =>
        (
          objects.find((o) => o.kind === 'ConfigMap' && o.metadata?.name === `quarry-${component}`) as unknown as {
            data: Record<string, string>;
          }
        ).data;
      const restricted = ['--set', 'networkPolicy.gateway.from[0].namespaceSelector.matchLabels.team=edge'];
      const embedded = helmTemplate(restricted);
      for (const svc of GRPC_SERVICES)
        expect(configOf(embedded, svc)).toMatchObject({
          QUARRY_SERVICE_TOKEN_ISSUER: 'https://quarry.example.com',
          QUARRY_SERVICE_TOKEN_JWKS_URL: 'http://quarry-gateway.quarry.svc.cluster.local:8080/oauth/jwks',
        });
      expect(configOf(embedded, 'gateway')).not.toHaveProperty('QUARRY_SERVICE_TOKEN_ISSUER');
      expect(configOf(embedded, 'indexer')).not.toHaveProperty('QUARRY_SERVICE_TOKEN_ISSUER');
      // With the gateway's ingress restricted, the release's own pods still reach it for the keys.
      const policy = embedded.find(
        (o) => o.kind === 'NetworkPolicy' && o.metadata?.name === 'quarry-gateway',
      ) as unknown as {
        spec: {
          ingress: { ports: { port: number }[]; from?: { podSelector?: { matchLabels?: Record<string, string> } }[] }[];
        };
      };
      const http = policy.spec.ingress.find((rule) => rule.ports.some((p) => p.port === 8080))!;
      expect(http.from).toContainEqual({
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'quarry', 'app.kubernetes.io/instance': 'quarry' } },
      });
      expect(validateAll(embedded, 'helm template')).toEqual([]);
      // An external issuer issues no service-account tokens; nor is there an issuer without a public URL.
      for (const extra of [
        ['--set', 'gateway.oauth.issuer=https://sso.example.com/realms/quarry'],
        ['--set', 'gateway.oauth.serviceTokens=false'],
        ['--set', 'ingress.enabled=false'],
      ])
        for (const svc of GRPC_SERVICES)
          expect(configOf(helmTemplate(extra), svc)).not.toHaveProperty('QUARRY_SERVICE_TOKEN_ISSUER');
    });

    it("mounts the embedded server's signing keys from an existing Secret into the gateway only", () => {
      const objects = helmTemplate(['--set', 'gateway.oauth.signingKeysSecret.name=quarry-oauth-keys']);
      const configOf = (component: string) =>
        (
          objects.find((o) => o.kind === 'ConfigMap' && o.metadata?.name === `quarry-${component}`) as unknown as {
            data: Record<string, string>;
          }
        ).data;
      expect(configOf('gateway').QUARRY_OAUTH_SIGNING_KEYS_FILE).toBe('/etc/quarry/oauth-signing-keys/jwks.json');
      type PodSpec = {
        containers: { volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[] }[];
        volumes?: { name: string; secret?: { secretName: string; items: { key: string; path: string }[] } }[];
      };
      const podOf = (component: string) =>
        (
          objects.find((o) => o.kind === 'Deployment' && o.metadata?.name === `quarry-${component}`) as unknown as {
            spec: { template: { spec: PodSpec } };
          }
        ).spec.template.spec;
      expect(podOf('gateway').volumes).toContainEqual({
        name: 'oauth-signing-keys',
        secret: { secretName: 'quarry-oauth-keys', items: [{ key: 'jwks.json', path: 'jwks.json' }] },
      });
      expect(podOf('gateway').containers[0]!.volumeMounts).toContainEqual({
        name: 'oauth-signing-keys',
        mountPath: '/etc/quarry/oauth-signing-keys',
        readOnly: true,
      });
      for (const svc of GRPC_SERVICES) expect(JSON.stringify(podOf(svc))).not.toContain('oauth-signing-keys');
      expect(validateAll(objects, 'helm template')).toEqual([]);
      // By default, and with an external issuer (which signs its own tokens), the keys stay in PostgreSQL.
      const external = [
        ...['--set', 'gateway.oauth.issuer=https://sso.example.com/realms/quarry'],
        ...['--set', 'gateway.oauth.signingKeysSecret.name=quarry-oauth-keys'],
      ];
      for (const extra of [[], external])
        expect(JSON.stringify(helmTemplate(extra))).not.toContain('oauth-signing-keys');
    });

    it('gives the indexer Kafka TLS and SASL when asked: settings in its ConfigMap, the password from the Secret', () => {
      const configOf = (objects: K8sObject[]) =>
        (
          objects.find((o) => o.kind === 'ConfigMap' && /indexer/.test(o.metadata?.name ?? '')) as unknown as {
            data: Record<string, string>;
          }
        ).data;
      expect(configOf(helmTemplate())).toMatchObject({ KAFKA_TLS: 'false' });
      expect(configOf(helmTemplate())).not.toHaveProperty('KAFKA_SASL_MECHANISM');
      const sasl = [
        '--set',
        'kafka.tls=true',
        '--set',
        'kafka.sasl.mechanism=scram-sha-512',
        '--set',
        'kafka.sasl.username=quarry',
        '--set',
        'kafka.sasl.password=kafka-pw',
      ];
      const objects = helmTemplate(sasl);
      expect(configOf(objects)).toMatchObject({
        KAFKA_TLS: 'true',
        KAFKA_SASL_MECHANISM: 'scram-sha-512',
        KAFKA_SASL_USERNAME: 'quarry',
      });
      expect(JSON.stringify(configOf(objects))).not.toContain('kafka-pw');
      const secret = objects.find((o) => o.kind === 'Secret' && o.metadata?.name === 'quarry') as unknown as {
        data: Record<string, string>;
      };
      expect(Buffer.from(secret.data['kafka-sasl-password']!, 'base64').toString()).toBe('kafka-pw');
      const indexer = objects.find(
        (o) => o.kind === 'Deployment' && /indexer/.test(o.metadata?.name ?? ''),
      ) as unknown as {
        spec: {
          template: {
            spec: { containers: { env?: { name: string; valueFrom?: { secretKeyRef?: { key: string } } }[] }[] };
          };
        };
      };
      const env = indexer.spec.template.spec.containers[0]!.env ?? [];
      expect(env.find((e) => e.name === 'KAFKA_SASL_PASSWORD')?.valueFrom?.secretKeyRef?.key).toBe(
        'kafka-sasl-password',
      );
      expect(validateAll(objects, 'helm template')).toEqual([]);
      expect(() => helmTemplate(['--set', 'kafka.sasl.mechanism=plain', '--set', 'kafka.sasl.username=q'])).toThrow(
        /plain sends the password as is: set kafka.tls=true/,
      );
    });
  });
} else {
  it.skip('helm is not on PATH: helm lint and helm template | validate did not run (install helm to run them)', () =>
    undefined);
}
