import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promqlMetricNames, unbalancedBrackets } from './promql.js';
import { deployDir, listFiles, readYamlFile, repoRoot } from './support.js';
import { EXPORTED_SERIES, QUARRY_METRICS } from './spec.js';

// The Grafana dashboard and the Prometheus alerts read only series Quarry exports (or that
// Prometheus records for every target), and those series are really defined in the services'
// sources, so a renamed metric breaks this check instead of an empty panel or a silent alert.

interface Target {
  refId?: string;
  expr?: string;
  datasource?: { type?: string; uid?: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type?: string; uid?: string };
  targets?: Target[];
  gridPos?: { h: number; w: number; x: number; y: number };
}
interface Variable {
  name: string;
  type: string;
  query?: string | { query: string };
  datasource?: { uid?: string };
}
interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  templating: { list: Variable[] };
  panels: Panel[];
}
interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const dashboardPath = join(deployDir, 'grafana', 'quarry-overview.json');
const dashboard = JSON.parse(readFileSync(dashboardPath, 'utf8')) as Dashboard;
const panels = dashboard.panels.filter((p) => p.type !== 'row');
const variableQuery = (v: Variable) => (typeof v.query === 'string' ? v.query : (v.query?.query ?? ''));
const dashboardExprs = [
  ...panels.flatMap((p) =>
    (p.targets ?? []).map((t) => ({ where: `panel "${p.title}" ${t.refId}`, expr: t.expr ?? '' })),
  ),
  ...dashboard.templating.list
    .filter((v) => v.type === 'query')
    .map((v) => ({
      where: `variable ${v.name}`,
      expr: variableQuery(v).replace(/^label_values\((.*),\s*\w+\)$/, '$1'),
    })),
];

const [ruleObject] = readYamlFile(join(deployDir, 'prometheus', 'quarry-rules.yaml')) as {
  spec: { groups: { name: string; rules: Rule[] }[] };
}[];
const rules = ruleObject!.spec.groups.flatMap((g) => g.rules);
const alerts = rules.filter((r) => r.alert);
const recorded = new Set(rules.flatMap((r) => (r.record ? [r.record] : [])));

/** The series names a list of expressions reads that nothing exports. */
const unknownSeries = (exprs: { where: string; expr: string }[]) =>
  exprs.flatMap(({ where, expr }) =>
    promqlMetricNames(expr)
      .filter((m) => !EXPORTED_SERIES.has(m) && !recorded.has(m))
      .map((m) => `${where}: ${m}`),
  );

describe('the Quarry metrics list (deploy/test/spec.ts)', () => {
  it('names only metrics that a service or library really defines', () => {
    const sources = [
      ...listFiles(join(repoRoot, 'services'), (n) => n.endsWith('.ts'), ['node_modules', 'dist', 'test']),
      ...listFiles(join(repoRoot, 'libs'), (n) => n.endsWith('.ts'), ['node_modules', 'dist', 'test']),
    ];
    const defined = new Set(
      sources.flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/['"](quarry_[a-z0-9_]+)['"]/g)].map((m) => m[1]!),
      ),
    );
    const listed = [...QUARRY_METRICS.counter, ...QUARRY_METRICS.gauge, ...QUARRY_METRICS.histogram];
    expect(listed.filter((m) => !defined.has(m))).toEqual([]);
  });
});

describe('deploy/grafana/quarry-overview.json', () => {
  it('is a current Grafana dashboard with a stable uid and Prometheus datasource, namespace and instance variables', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
    expect(dashboard.uid).toMatch(/^[\w-]{1,40}$/);
    const variables = Object.fromEntries(dashboard.templating.list.map((v) => [v.name, v]));
    expect(variables.DS_PROMETHEUS).toMatchObject({ type: 'datasource', query: 'prometheus' });
    for (const name of ['namespace', 'instance'])
      expect(variables[name]).toMatchObject({ type: 'query', datasource: { uid: '${DS_PROMETHEUS}' } });
  });

  it('gives every panel the datasource variable, at least one query, a unique id and a place', () => {
    const problems = panels.flatMap((p) => [
      ...(p.datasource?.uid === '${DS_PROMETHEUS}' ? [] : [`${p.title}: datasource is not \${DS_PROMETHEUS}`]),
      ...((p.targets ?? []).length > 0 ? [] : [`${p.title}: no target`]),
      ...(p.targets ?? []).filter((t) => !t.expr?.trim()).map((t) => `${p.title}: target ${t.refId} has no expr`),
      ...(p.gridPos ? [] : [`${p.title}: no gridPos`]),
    ]);
    expect(problems).toEqual([]);
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('shows what operators need: tool calls, latency percentiles, errors by code, input_required, index lag, stalls, dead letters, log drops, memory', () => {
    const all = dashboardExprs.map((e) => e.expr).join('\n');
    for (const needle of [
      /rate\(quarry_gateway_tool_calls_total\{[^}]*\}\[\$__rate_interval\]\)/,
      ...[0.5, 0.95, 0.99].map(
        (q) =>
          new RegExp(
            `histogram_quantile\\(${q}, sum by \\(le\\) \\(rate\\(quarry_gateway_tool_call_duration_seconds_bucket`,
          ),
      ),
      /sum by \(code\) \(rate\(quarry_gateway_tool_calls_total\{outcome=~"tool_error\|protocol_error"/,
      /outcome="input_required"/,
      /quarry_indexer_lag_seconds/,
      /quarry_indexer_pending_events/,
      /quarry_plan_stalled_plans/,
      /increase\(quarry_indexer_dead_letters_total/,
      /quarry_gateway_tool_call_log_dropped_total/,
      /process_resident_memory_bytes/,
    ]) {
      expect(all).toMatch(needle);
    }
  });

  it('filters every panel query by the namespace and instance variables', () => {
    const unfiltered = dashboardExprs.filter(
      (e) =>
        e.where.startsWith('panel') &&
        !(e.expr.includes('namespace=~"$namespace"') && e.expr.includes('instance=~"$instance"')),
    );
    expect(unfiltered.map((e) => e.where)).toEqual([]);
  });

  it('reads only exported series, in well-formed expressions', () => {
    expect(unknownSeries(dashboardExprs)).toEqual([]);
    expect(dashboardExprs.filter((e) => unbalancedBrackets(e.expr)).map((e) => e.where)).toEqual([]);
  });
});

describe('deploy/prometheus/quarry-rules.yaml', () => {
  const EXPECTED = [
    'QuarryGatewayHighErrorRate',
    'QuarryGatewayHighLatency',
    'QuarryIndexerLagHigh',
    'QuarryIndexerDeadLetters',
    'QuarryPlansStalled',
    'QuarryToolCallLogDropping',
    'QuarryServiceDown',
  ];

  it('has the Quarry alerts, each with a duration, a severity, a summary, a description and a runbook', () => {
    expect(alerts.map((a) => a.alert)).toEqual(EXPECTED);
    const problems = alerts.flatMap((a) => [
      ...(a.for && /^\d+[smh]$/.test(a.for) ? [] : [`${a.alert}: no for`]),
      ...(['critical', 'warning', 'info'].includes(a.labels?.severity ?? '')
        ? []
        : [`${a.alert}: severity ${a.labels?.severity}`]),
      ...['summary', 'description', 'runbook']
        .filter((k) => !a.annotations?.[k]?.trim())
        .map((k) => `${a.alert}: no ${k}`),
    ]);
    expect(problems).toEqual([]);
  });

  it('reads only exported series, in well-formed expressions', () => {
    const exprs = rules.map((r) => ({ where: r.alert ?? r.record ?? '?', expr: r.expr }));
    expect(unknownSeries(exprs)).toEqual([]);
    expect(exprs.filter((e) => unbalancedBrackets(e.expr)).map((e) => e.where)).toEqual([]);
  });

  it('fails a rule that reads a series nothing exports (the check can fail)', () => {
    expect(unknownSeries([{ where: 'typo', expr: 'sum(rate(quarry_gateway_tool_call_total[5m])) > 0' }])).toEqual([
      'typo: quarry_gateway_tool_call_total',
    ]);
    expect(unbalancedBrackets('sum(rate(x[5m])')).toBe(true);
  });
});
