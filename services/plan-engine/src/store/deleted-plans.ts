import { sql } from 'kysely';
import type { Trx } from './plans.js';

// Deleting a plan's own rows, inside the caller's tenant transaction (row-level security
// confines every statement to the caller's org).

/** Lock the plan row until the transaction ends; the number of its steps, or undefined when there is no such plan. */
export async function lockPlanForDeletion(trx: Trx, planId: string): Promise<number | undefined> {
  const plan = await trx
    .selectFrom('plan.research_plans')
    .select('id')
    .where('id', '=', planId)
    .forUpdate()
    .executeTakeFirst();
  if (!plan) return undefined;
  const { steps } = await trx
    .selectFrom('plan.plan_steps')
    .select((eb) => eb.fn.countAll<string>().as('steps'))
    .where('plan_id', '=', planId)
    .executeTakeFirstOrThrow();
  return Number(steps);
}

/**
 * Delete the plan row (after its audit rows: their foreign key refuses it otherwise); its steps,
 * conditions, reviews, feedback and submit keys go with it (on delete cascade), and skill
 * executions lose their link to it (set null).
 */
export async function deletePlanRow(trx: Trx, planId: string): Promise<void> {
  await trx.deleteFrom('plan.research_plans').where('id', '=', planId).execute();
}

/**
 * The plan's audit rows, through the one path allowed to delete them (see the plan_deletion
 * migration); `chainLinks` is what the tombstone keeps of them for the org's hash chain: each
 * purged row's [chain_seq, content sha256] (see the audit_chain migration).
 */
export async function purgePlanAudit(
  trx: Trx,
  planId: string,
): Promise<{ rows: number; sha256: string; chainLinks: unknown }> {
  const { rows } = await sql<{ rows_purged: string; rows_sha256: string; chain_links: unknown }>`
    select rows_purged, rows_sha256, chain_links from plan.purge_plan_audit(${planId}::uuid)`.execute(trx);
  const row = rows[0]!;
  return { rows: Number(row.rows_purged), sha256: row.rows_sha256, chainLinks: row.chain_links };
}

export interface DeletedPlanRecord {
  orgId: string;
  planId: string;
  deletedBy: string;
  requestId: string | null;
  steps: number;
  artifacts: number;
  outputs: number;
  extractionResults: number;
  auditRows: number;
  auditSha256: string;
  /** From purgePlanAudit, as returned. */
  auditChainLinks: unknown;
}

/** The content-free tombstone of a deleted plan (append-only; the chain trigger makes it the org's next audit entry). */
export async function insertDeletedPlan(trx: Trx, row: DeletedPlanRecord): Promise<void> {
  await trx
    .insertInto('plan.deleted_plans')
    .values({
      org_id: row.orgId,
      plan_id: row.planId,
      deleted_by: row.deletedBy,
      request_id: row.requestId,
      steps_deleted: row.steps,
      artifacts_deleted: row.artifacts,
      outputs_deleted: row.outputs,
      extraction_results_deleted: row.extractionResults,
      audit_rows_purged: row.auditRows,
      audit_rows_sha256: row.auditSha256,
      purged_links: JSON.stringify(row.auditChainLinks),
    })
    .execute();
}
