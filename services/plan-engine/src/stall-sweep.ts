import type { AnyDb } from '@quarry/db';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { runPeriodically } from './periodic.js';

/** The nologin role whose members may call plan.mark_stalled_plans (the migration creates it). */
const PLAN_MAINTENANCE_ROLE = 'quarry_plan_maintenance';

/**
 * Let `role` (the role the plan engine connects as) run the stall sweep, plan.mark_stalled_plans:
 * the one cross-tenant write of the plan schema, which only turns overdue executing plans into
 * stalled ones with their audit rows. Run as the admin after migrating; idempotent. Without it
 * every sweep fails (logged) and stalls are only reported, not stored.
 */
export async function grantPlanMaintenance(adminDb: AnyDb, role: string): Promise<void> {
  await sql`grant ${sql.id(PLAN_MAINTENANCE_ROLE)} to ${sql.id(role)}`.execute(adminDb);
}

/**
 * Marks up to `maxPlans` executing plans of any org whose step has been in progress for longer
 * than `thresholdMs` as stalled, each with a plan_status_changed audit row; returns how many. Plans
 * a request holds locked are left to the next sweep.
 */
export async function markStalledPlans(db: AnyDb, options: { thresholdMs: number; maxPlans: number }): Promise<number> {
  const { thresholdMs, maxPlans } = options;
  if (!(Number.isFinite(thresholdMs) && thresholdMs > 0))
    throw new RangeError(`markStalledPlans: thresholdMs must be a positive number, got ${thresholdMs}`);
  const { rows } = await sql<{ n: number }>`
    select plan.mark_stalled_plans(${thresholdMs} * interval '1 millisecond', ${maxPlans}::integer) as n`.execute(db);
  return Number(rows[0]!.n);
}

export interface StallSweepOptions {
  db: AnyDb;
  thresholdMs: number;
  /** Time between sweeps. */
  intervalMs: number;
  logger: Logger;
  /** Plans marked per statement; a sweep repeats until fewer are marked. Default 500. */
  maxPlans?: number;
}

/**
 * Sweeps every `intervalMs` (first after one interval) until stopped. A failed sweep is logged
 * and the next one tries again; `stop` waits for a sweep in flight.
 */
export function startStallSweep(options: StallSweepOptions): { stop(): Promise<void> } {
  const { db, thresholdMs, intervalMs, logger } = options;
  const maxPlans = options.maxPlans ?? 500;
  const sweep = async () => {
    try {
      let marked = 0;
      for (let batch = maxPlans; batch === maxPlans;) {
        batch = await markStalledPlans(db, { thresholdMs, maxPlans });
        marked += batch;
      }
      if (marked > 0) logger.info({ marked }, 'stall sweep marked plans stalled');
    } catch (err) {
      logger.warn({ err }, 'stall sweep failed; the next one tries again');
    }
  };
  return runPeriodically(intervalMs, sweep);
}
