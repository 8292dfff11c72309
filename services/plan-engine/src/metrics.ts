import type { AnyDb } from '@quarry/db';
import type { Metrics } from '@quarry/telemetry';
import { sql } from 'kysely';
import type { Logger } from 'pino';

/** The nologin role whose members may call plan.count_stalled_plans (the migration creates it). */
const PLAN_METRICS_ROLE = 'quarry_plan_metrics';

/**
 * Let `role` (the app role the plan engine connects as) count stalled plans across orgs through
 * plan.count_stalled_plans, the one cross-tenant read of the plan schema, which returns a
 * number and never rows. Run as the admin after migrating; idempotent. Without it the gauge
 * cannot be refreshed and every scrape counts a failure.
 */
export async function grantPlanMetrics(adminDb: AnyDb, role: string): Promise<void> {
  await sql`grant ${sql.id(PLAN_METRICS_ROLE)} to ${sql.id(role)}`.execute(adminDb);
}

/**
 * Plans whose reported status is stalled, in every org (get_plan_status and list_active_plans
 * report the same status): stored `stalled`, or `executing` with a step in progress for longer
 * than `thresholdMs`. One short transaction, cancelled by PostgreSQL after `timeoutMs`.
 */
export async function countStalledPlans(
  db: AnyDb,
  options: { thresholdMs: number; timeoutMs: number },
): Promise<number> {
  const { thresholdMs, timeoutMs } = options;
  if (!(Number.isFinite(thresholdMs) && thresholdMs > 0))
    throw new RangeError(`countStalledPlans: thresholdMs must be a positive number, got ${thresholdMs}`);
  if (!(Number.isInteger(timeoutMs) && timeoutMs > 0))
    throw new RangeError(`countStalledPlans: timeoutMs must be a positive integer, got ${timeoutMs}`);
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('statement_timeout', ${String(timeoutMs)}, true)`.execute(trx);
    const { rows } = await sql<{
      n: string;
    }>`select plan.count_stalled_plans(${thresholdMs} * interval '1 millisecond') as n`.execute(trx);
    return Number(rows[0]!.n);
  });
}

export interface PlanMetricsDeps {
  /** The plan engine's pool (the app role, a member of quarry_plan_metrics). */
  db: AnyDb;
  /** The service's QUARRY_STALL_THRESHOLD, so the gauge agrees with get_plan_status. */
  stallThresholdMs: number;
  logger: Logger;
  /** Statement timeout of the count at each scrape. Default 2000 ms. */
  timeoutMs?: number;
}

/**
 * Register the plan engine's metrics in `metrics`:
 *
 * - `quarry_plan_stalled_plans` (gauge): plans currently stalled across all orgs, counted
 *   when scraped (the metric's `collect`), so it is as fresh as the scrape and costs nothing
 *   when nobody scrapes. A count that fails or exceeds the timeout leaves the previous value
 *   in place (0 before the first success) and the scrape still succeeds;
 * - `quarry_plan_metrics_failures_total` (counter): such failed counts, so a stale gauge can
 *   alert on its own.
 *
 * Both wait for the same count, so a failure shows in the scrape that met it; concurrent
 * scrapes share one count.
 */
export function registerPlanMetrics(metrics: Metrics, deps: PlanMetricsDeps): void {
  const { db, stallThresholdMs, logger } = deps;
  const timeoutMs = deps.timeoutMs ?? 2_000;
  let counting: Promise<void> | undefined;
  const refresh = () =>
    (counting ??= (async () => {
      try {
        stalled.set(await countStalledPlans(db, { thresholdMs: stallThresholdMs, timeoutMs }));
      } catch (err) {
        failures.inc();
        logger.warn({ err }, 'counting stalled plans for /metrics failed; the gauge keeps its previous value');
      } finally {
        counting = undefined;
      }
    })());
  const stalled = metrics.gauge(
    'quarry_plan_stalled_plans',
    'Plans currently stalled in all orgs: stored stalled, or executing with a step in progress longer than QUARRY_STALL_THRESHOLD',
    [],
    refresh,
  );
  const failures = metrics.counter(
    'quarry_plan_metrics_failures_total',
    'Scrapes whose count of stalled plans failed or timed out (the gauge kept its previous value)',
    [],
    refresh,
  );
}
