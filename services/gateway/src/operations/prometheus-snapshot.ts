import type { MetricJson, OpsSnapshot } from './ops-snapshot.js';
import { opsSnapshotOf } from './ops-snapshot.js';

/**
 * What the operations page asks Prometheus (QUARRY_PROMETHEUS_URL) when Quarry runs as separate
 * processes: the same metrics, across every replica and service. Gauges every replica reports
 * alike (the outbox, stalled plans) take the max; failed calls are the last hour's.
 */
const QUERIES: ReadonlyArray<{ name: string; query: string; labels?: Record<string, string> }> = [
  { name: 'quarry_indexer_lag_seconds', query: 'max(quarry_indexer_lag_seconds)' },
  { name: 'quarry_indexer_pending_events', query: 'max(quarry_indexer_pending_events)' },
  { name: 'quarry_indexer_dead_letters_total', query: 'sum(quarry_indexer_dead_letters_total)' },
  { name: 'quarry_plan_stalled_plans', query: 'max(quarry_plan_stalled_plans)' },
  { name: 'quarry_gateway_tool_call_log_pending', query: 'sum(quarry_gateway_tool_call_log_pending)' },
  { name: 'quarry_gateway_tool_call_log_dropped_total', query: 'sum(quarry_gateway_tool_call_log_dropped_total)' },
  {
    name: 'quarry_gateway_tool_calls_total',
    query: 'sum by (tool, code) (increase(quarry_gateway_tool_calls_total{outcome=~"tool_error|protocol_error"}[1h]))',
    labels: { outcome: 'tool_error' },
  },
];

interface InstantVector {
  status: string;
  data?: { resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> };
}

/** The snapshot from Prometheus's HTTP API; a query it cannot answer reads as not reported. */
export function prometheusSnapshot(baseUrl: string, fetchImpl: typeof fetch = fetch): () => Promise<OpsSnapshot> {
  const base = baseUrl.replace(/\/$/, '');
  async function query(item: (typeof QUERIES)[number]): Promise<MetricJson | undefined> {
    const response = await fetchImpl(`${base}/api/v1/query?query=${encodeURIComponent(item.query)}`, {
      signal: AbortSignal.timeout(5000),
    });
    if (!response.ok) return undefined;
    const body = (await response.json()) as InstantVector;
    if (body.status !== 'success' || body.data?.resultType !== 'vector' || body.data.result.length === 0)
      return undefined;
    return {
      name: item.name,
      values: body.data.result.map((r) => ({ value: Number(r.value[1]), labels: { ...r.metric, ...item.labels } })),
    };
  }
  return async () => {
    const metrics = await Promise.all(QUERIES.map((item) => query(item).catch(() => undefined)));
    return opsSnapshotOf(metrics.filter((m): m is MetricJson => m !== undefined));
  };
}
