import type { Selectable } from 'kysely';
import type { Trx } from './plans.js';
import type { PlanDatabase } from './schema.js';

export type AuditRow = Selectable<PlanDatabase['plan.plan_audit_log']>;

/** The plan's latest audit rows, newest first. */
export async function recentAuditEvents(trx: Trx, planId: string, limit: number): Promise<AuditRow[]> {
  return trx
    .selectFrom('plan.plan_audit_log')
    .selectAll()
    .where('plan_id', '=', planId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
