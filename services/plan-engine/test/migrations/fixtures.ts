import { randomUUID } from 'node:crypto';
import { type AnyDb, sql } from '@quarry/db';

/** Every table of the `plan` schema; all of them are org-scoped. */
export const PLAN_TABLES = [
  'research_plans',
  'plan_steps',
  'branching_conditions',
  'user_reviews',
  'skill_executions',
  'research_feedback',
  'output_preferences',
  'step_result_submissions',
  'plan_audit_log',
  'deleted_plans',
] as const;
export type PlanTable = (typeof PLAN_TABLES)[number];
/** Tables whose rows are never updated or deleted (a trigger refuses it). */
export const APPEND_ONLY: readonly PlanTable[] = ['plan_audit_log', 'deleted_plans'];

/** The IDs of one org's seeded rows. */
export interface SeededOrg {
  orgId: string;
  planId: string;
  /** Steps with orders 1, 2, 3. */
  stepIds: [string, string, string];
  executionId: string;
}

/**
 * One row in every table for a new org, written as the admin (a superuser, so RLS does not
 * apply): a plan with three steps, a skip_to condition after step 1, a review of step 1, a
 * skill execution linked to the plan, feedback, output preferences, a stored submit answer and
 * an audit event. Seeding another plan for the same org adds everything but the preferences.
 */
export async function seedOrg(admin: AnyDb, orgId: string = randomUUID()): Promise<SeededOrg> {
  const planId = randomUUID();
  const stepIds: [string, string, string] = [randomUUID(), randomUUID(), randomUUID()];
  const executionId = randomUUID();
  await admin.transaction().execute(async (trx) => {
    await trx
      .insertInto('plan.research_plans')
      .values({ id: planId, org_id: orgId, name: 'Plan', research_question: 'Why?' })
      .execute();
    await trx
      .insertInto('plan.skill_executions')
      .values({
        id: executionId,
        org_id: orgId,
        skill_name: 'research',
        status: 'started',
        plan_id: planId,
        session_id: 's-1',
      })
      .execute();
    await trx
      .updateTable('plan.research_plans')
      .set({ skill_execution_id: executionId })
      .where('id', '=', planId)
      .execute();
    await trx
      .insertInto('plan.plan_steps')
      .values(
        stepIds.map((id, i) => ({
          id,
          org_id: orgId,
          plan_id: planId,
          step_order: i + 1,
          step_type: 'search',
          instructions: `Step ${i + 1}`,
        })),
      )
      .execute();
    for (const table of [
      'branching_conditions',
      'user_reviews',
      'research_feedback',
      'output_preferences',
      'step_result_submissions',
      'plan_audit_log',
      'deleted_plans',
    ] as const) {
      // Seeding a second plan for the same org keeps its one output-preferences row.
      await trx
        .insertInto(`plan.${table}`)
        .values(newRow(table, { orgId, planId, stepIds, executionId }))
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
  });
  return { orgId, planId, stepIds, executionId };
}

/**
 * A new row for `table` that belongs to `refs.orgId` and points at that org's rows. Unique
 * columns get fresh values, except output_preferences, whose key is the org itself.
 */
export function newRow(table: PlanTable, refs: SeededOrg): Record<string, unknown> {
  const { orgId, planId, stepIds, executionId } = refs;
  switch (table) {
    case 'research_plans':
      return { org_id: orgId, name: 'Another plan', research_question: 'What?', skill_execution_id: executionId };
    case 'plan_steps':
      return {
        org_id: orgId,
        plan_id: planId,
        step_order: 100 + Math.floor(Math.random() * 1e6),
        step_type: 'custom',
        instructions: 'More',
      };
    case 'branching_conditions':
      return {
        org_id: orgId,
        plan_id: planId,
        step_id: stepIds[0],
        evaluation_order: 0,
        condition_expression: 'confidence > 0.9',
        if_true_action: 'skip_to',
        target_step_id: stepIds[2],
      };
    case 'user_reviews':
      return {
        org_id: orgId,
        plan_id: planId,
        step_id: stepIds[0],
        summary: 'Look',
        questions: ['Ok?'],
        decision: 'approve',
        decided_at: new Date(),
      };
    case 'skill_executions':
      return {
        org_id: orgId,
        skill_name: 'research-scan',
        status: 'executing',
        metadata: JSON.stringify({ depth: 1 }),
      };
    case 'research_feedback':
      return { org_id: orgId, plan_id: planId, feedback_type: 'initial', user_satisfaction: 'positive' };
    case 'output_preferences':
      return { org_id: orgId, output_media_type: 'markdown', output_formatting_instructions: 'Short.' };
    case 'step_result_submissions':
      return {
        org_id: orgId,
        plan_id: planId,
        idempotency_key: randomUUID(),
        step_id: stepIds[0],
        response: JSON.stringify({ submitted: true, planStatus: 'executing' }),
      };
    case 'plan_audit_log':
      return {
        org_id: orgId,
        plan_id: planId,
        step_id: stepIds[0],
        event_type: 'plan_modified',
        details: JSON.stringify({ change: 'created' }),
      };
    case 'deleted_plans':
      return {
        org_id: orgId,
        plan_id: randomUUID(),
        deleted_by: 'test',
        steps_deleted: 1,
        artifacts_deleted: 0,
        outputs_deleted: 0,
        extraction_results_deleted: 0,
        audit_rows_purged: 1,
        audit_rows_sha256: 'a'.repeat(64),
      };
  }
}

/** Run `fn` in a transaction of `db` (the app role) as tenant `orgId`, or with no tenant. */
export function asTenant<T>(db: AnyDb, orgId: string | undefined, fn: (trx: AnyDb) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    if (orgId) await sql`select set_config('app.org_id', ${orgId}, true)`.execute(trx);
    return fn(trx);
  });
}

/** The org_id of every row of `table` visible to the caller. */
export async function visibleOrgs(db: AnyDb, table: PlanTable): Promise<string[]> {
  const { rows } = await sql<{ org_id: string }>`select org_id from ${sql.table(`plan.${table}`)}`.execute(db);
  return rows.map((r) => r.org_id);
}
