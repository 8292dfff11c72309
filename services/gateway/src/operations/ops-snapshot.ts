/** A metric as prom-client's `getMetricsAsJSON` gives it (only what is read here). */
export interface MetricJson {
  name: string;
  values: ReadonlyArray<{ value: number; labels: Readonly<Record<string, string | number | undefined>> }>;
}

export interface ToolErrors {
  tool: string;
  code: string;
  count: number;
}

/** What the operations page shows, from the metrics every service already exports. */
export interface OpsSnapshot {
  /** Seconds since the oldest content event not yet indexed; null when no indexer reports here. */
  indexerLagSeconds: number | null;
  /** Content events in the outbox not yet indexed. */
  outboxDepth: number | null;
  /** Content events given up on since the indexer started. */
  deadLetters: number | null;
  stalledPlans: number | null;
  toolCallLogPending: number | null;
  toolCallLogDropped: number | null;
  /** Failed tool calls since start, by tool and error code, most first. */
  errorsByTool: ToolErrors[];
}

function sum(metrics: readonly MetricJson[], name: string): number | null {
  const found = metrics.filter((m) => m.name === name);
  if (found.length === 0) return null;
  return found.reduce((total, m) => total + m.values.reduce((t, v) => t + v.value, 0), 0);
}

function max(metrics: readonly MetricJson[], name: string): number | null {
  const values = metrics.filter((m) => m.name === name).flatMap((m) => m.values.map((v) => v.value));
  return values.length === 0 ? null : Math.max(...values);
}

/**
 * The snapshot from metrics (the gateway's and those of the services in this process): pure, so
 * the page's numbers are tested without a running system.
 */
export function opsSnapshotOf(metrics: readonly MetricJson[], topErrors = 20): OpsSnapshot {
  const errors = new Map<string, ToolErrors>();
  for (const metric of metrics.filter((m) => m.name === 'quarry_gateway_tool_calls_total'))
    for (const { value, labels } of metric.values) {
      if (labels.outcome === 'ok' || labels.outcome === 'input_required' || value <= 0) continue;
      const tool = String(labels.tool);
      const code = String(labels.code ?? '');
      const key = `${tool}\u0000${code}`;
      const entry = errors.get(key) ?? { tool, code, count: 0 };
      entry.count += value;
      errors.set(key, entry);
    }
  return {
    indexerLagSeconds: max(metrics, 'quarry_indexer_lag_seconds'),
    outboxDepth: sum(metrics, 'quarry_indexer_pending_events'),
    deadLetters: sum(metrics, 'quarry_indexer_dead_letters_total'),
    stalledPlans: sum(metrics, 'quarry_plan_stalled_plans'),
    toolCallLogPending: sum(metrics, 'quarry_gateway_tool_call_log_pending'),
    toolCallLogDropped: sum(metrics, 'quarry_gateway_tool_call_log_dropped_total'),
    errorsByTool: [...errors.values()].sort((a, b) => b.count - a.count).slice(0, topErrors),
  };
}
