import { describe, expect, it } from '@jest/globals';
import { commandWords, copySources, parseDockerfile } from './dockerfile-check.js';
import { hasPath, mergeValues, valuesPaths } from './helm-values.js';
import { validateAll, validateObject } from './kubernetes-schema.js';
import { promqlMetricNames } from './promql.js';
import { onPath, parseYamlDocuments } from './support.js';

// The checks are only as good as these helpers: each is shown to reject what it must.

const deployment = () => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'gateway' },
  spec: {
    selector: { matchLabels: { app: 'x' } },
    template: {
      metadata: { labels: { app: 'x' } },
      spec: { containers: [{ name: 'gateway', image: 'quarry/gateway:1', ports: [{ containerPort: 8080 }] }] },
    },
  },
});

describe('validateObject', () => {
  it('accepts a valid Deployment', () => {
    expect(validateObject(deployment())).toEqual([]);
  });

  it('rejects a wrong type, a missing required field and a bad enum', () => {
    const wrongType = deployment();
    (wrongType.spec.template.spec.containers[0]!.ports[0] as { containerPort: unknown }).containerPort = '8080';
    expect(validateObject(wrongType).join()).toMatch(/containerPort must be integer/);

    const noSelector: Record<string, unknown> = deployment();
    delete (noSelector.spec as Record<string, unknown>).selector;
    expect(validateObject(noSelector).join()).toMatch(/must have required property selector/);

    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 'http' }] } };
    expect(validateObject(service).join()).toMatch(/port must be integer/);
  });

  it('rejects a missing name', () => {
    expect(validateObject({ ...deployment(), metadata: {} })).toContain('metadata.name is missing');
  });

  it('fails an object of a kind it has no schema for, and a non-object', () => {
    expect(validateObject({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }).join()).toMatch(
      /unknown kind example.com\/v1\/Widget/,
    );
    expect(
      validateObject({ apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'old' } }).join(),
    ).toMatch(/unknown kind/);
    expect(validateObject({ kind: 'ConfigMap' })).toEqual([
      'not a Kubernetes object (apiVersion and kind must be strings)',
    ]);
  });

  it('validates the Prometheus Operator kinds against their CRD schemas', () => {
    const rule = {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PrometheusRule',
      metadata: { name: 'r' },
      spec: { groups: [{ name: 'g', rules: [{ alert: 'A', expr: 'up == 0', for: '5m' }] }] },
    };
    expect(validateObject(rule)).toEqual([]);
    const noName = structuredClone(rule);
    delete (noName.spec.groups[0] as Partial<(typeof rule.spec.groups)[0]>).name;
    expect(validateObject(noName).join()).toMatch(/must have required property name/);
    const badDuration = structuredClone(rule);
    badDuration.spec.groups[0]!.rules[0]!.for = 'five minutes';
    expect(validateObject(badDuration).join()).toMatch(/for must match pattern/);
  });

  it('reads Secret data as the API server does (wrapped base64 is fine, non-base64 is not)', () => {
    const secret = (value: string) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { key: value },
    });
    expect(
      validateObject(secret('cG9zdGdyZXM6Ly9wb3N0Z3JlczpkZXYtYWRtaW4tcGFzc3dvcmRAcG9zdGdyZXM6NTQzMi\n9xdWFycnk=\n')),
    ).toEqual([]);
    expect(validateObject(secret('postgres://not-base64')).join()).toMatch(/must match format "byte"/);
  });

  it('names each failing object in a batch', () => {
    const broken = { ...deployment(), metadata: { name: 'broken' }, spec: 'nope' };
    expect(validateAll([deployment(), broken], 'file.yaml')).toEqual([
      expect.stringMatching(/^file\.yaml: Deployment\/broken: .*spec must be object/),
    ]);
  });
});

describe('parseYamlDocuments', () => {
  it('returns every non-empty document', () => {
    expect(parseYamlDocuments('a: 1\n---\n---\nb: 2\n', 'x')).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('throws on invalid YAML, naming the source', () => {
    expect(() => parseYamlDocuments('a: [1, 2\n', 'broken.yaml')).toThrow(/broken\.yaml: invalid YAML/);
  });
});

describe('promqlMetricNames', () => {
  it('finds the selectors, not functions, labels, keywords, durations or Grafana variables', () => {
    const expr = `histogram_quantile(0.95, sum by (namespace, le) (rate(quarry_gateway_tool_call_duration_seconds_bucket{tool!~"extract_data|get_plan_status", namespace=~"$namespace"}[$__rate_interval]))) > 1
      and on (namespace) sum without (instance) (rate(quarry_gateway_tool_calls_total{code="INTERNAL"}[5m] offset 1h)) > bool 0.1
      or absent(up{job="x"}) unless max_over_time(quarry_indexer_lag_seconds[1h:5m]) > 3e2`;
    expect(promqlMetricNames(expr)).toEqual([
      'quarry_gateway_tool_call_duration_seconds_bucket',
      'quarry_gateway_tool_calls_total',
      'quarry_indexer_lag_seconds',
      'up',
    ]);
  });

  it('reports a misspelt metric so the check can fail', () => {
    expect(promqlMetricNames('sum(rate(quarry_gateway_tool_call_total[5m]))')).toEqual([
      'quarry_gateway_tool_call_total',
    ]);
  });
});

describe('valuesPaths and hasPath', () => {
  it('collects .Values and $.Values paths once each', () => {
    const template = `{{- if .Values.gateway.enabled }}
image: {{ .Values.image.registry }}/{{ $.Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{ include "x" (dict "v" $.Values.gateway.resources) }}{{ .Values.gateway.enabled }}
{{ .Values }} {{ $someValues.foo }}`;
    expect(valuesPaths(template)).toEqual([
      ['gateway', 'enabled'],
      ['gateway', 'resources'],
      ['image', 'registry'],
      ['image', 'repository'],
      ['image', 'tag'],
    ]);
  });

  it('tells a present path (any leaf, null included) from a missing one', () => {
    const values = { gateway: { enabled: true, resources: {} }, image: { tag: null }, list: [1] };
    expect(hasPath(values, ['gateway', 'resources'])).toBe(true);
    expect(hasPath(values, ['image', 'tag'])).toBe(true);
    expect(hasPath(values, ['gateway', 'replicas'])).toBe(false);
    expect(hasPath(values, ['list', '0'])).toBe(false);
    expect(hasPath(values, ['image', 'tag', 'x'])).toBe(false);
  });

  it('merges values like Helm: maps deep, lists and scalars replaced', () => {
    expect(mergeValues({ a: { b: 1, c: [1, 2] }, d: 1 }, { a: { c: [3] }, e: 2 })).toEqual({
      a: { b: 1, c: [3] },
      d: 1,
      e: 2,
    });
  });
});

describe('parseDockerfile', () => {
  const text = `# syntax=docker/dockerfile:1
ARG NODE=22-bookworm-slim
FROM node:\${NODE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY --chown=node:node libs/*/package.json \\
     ./libs/
FROM deps AS gateway
COPY --from=deps /app/node_modules ./node_modules
CMD ["node", "services/gateway/dist/main.js"]
FROM deps as cli
ENTRYPOINT node services/cli/dist/bin.js
`;

  it('splits stages and instructions, joins continuations and separates flags', () => {
    const { stages, instructions } = parseDockerfile(text);
    expect(stages.map((s) => [s.name, s.from])).toEqual([
      ['deps', 'node:${NODE}'],
      ['gateway', 'deps'],
      ['cli', 'deps'],
    ]);
    const copies = instructions.filter((i) => i.instruction === 'COPY');
    expect(copies.map((c) => [c.stage, c.flags, copySources(c.args)])).toEqual([
      ['deps', {}, ['package.json', 'package-lock.json']],
      ['deps', { chown: 'node:node' }, ['libs/*/package.json']],
      ['gateway', { from: 'deps' }, ['/app/node_modules']],
    ]);
    const commands = instructions.filter((i) => i.instruction === 'CMD' || i.instruction === 'ENTRYPOINT');
    expect(commands.map((c) => [c.stage, commandWords(c.args)])).toEqual([
      ['gateway', ['node', 'services/gateway/dist/main.js']],
      ['cli', ['node', 'services/cli/dist/bin.js']],
    ]);
  });

  it('rejects a malformed exec form', () => {
    expect(() => commandWords('["node", 1]')).toThrow(/not a JSON string array/);
  });
});

describe('onPath', () => {
  it('finds executables on a given PATH only', () => {
    expect(onPath('node', `/nonexistent:${process.execPath.replace(/\/node$/, '')}`)).toBe(true);
    expect(onPath('node', '/nonexistent')).toBe(false);
    expect(onPath('definitely-not-a-command-quarry')).toBe(false);
  });
});
