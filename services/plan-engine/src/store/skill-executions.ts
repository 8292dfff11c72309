import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import type { PlanRow, Trx } from './plans.js';
import type { PlanDatabase } from './schema.js';

type SkillExecutions = PlanDatabase['plan.skill_executions'];
export type SkillExecutionRow = Selectable<SkillExecutions>;

/** The session's latest run still under way (started or executing), which a new plan of that session joins. */
export async function activeExecutionOfSession(trx: Trx, sessionId: string): Promise<string | undefined> {
  const row = await trx
    .selectFrom('plan.skill_executions')
    .select('id')
    .where('session_id', '=', sessionId)
    .where('status', 'in', ['started', 'executing'])
    .orderBy('started_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

/** Links the run to the plan, unless it already names one. */
export async function linkExecutionToPlan(trx: Trx, executionId: string, planId: string, at: Date): Promise<void> {
  await trx
    .updateTable('plan.skill_executions')
    .set({ plan_id: planId, updated_at: at })
    .where('id', '=', executionId)
    .where('plan_id', 'is', null)
    .execute();
}

/** The plan's run: the one it was created in, else the latest that names it. */
export async function executionOfPlan(trx: Trx, plan: PlanRow): Promise<SkillExecutionRow | undefined> {
  return trx
    .selectFrom('plan.skill_executions')
    .selectAll()
    .where((eb) => (plan.skill_execution_id ? eb('id', '=', plan.skill_execution_id) : eb('plan_id', '=', plan.id)))
    .orderBy('started_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function insertExecution(trx: Trx, row: Insertable<SkillExecutions>): Promise<string> {
  const { id } = await trx.insertInto('plan.skill_executions').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}

/** The run, locked for the rest of the transaction so concurrent updates of it apply one after the other. */
export async function lockExecution(trx: Trx, executionId: string): Promise<SkillExecutionRow | undefined> {
  return trx
    .selectFrom('plan.skill_executions')
    .selectAll()
    .where('id', '=', executionId)
    .forUpdate()
    .executeTakeFirst();
}

/** Updates the run; `metadata` is merged shallowly: keys sent now replace the stored ones, the rest stay. */
export async function updateExecution(
  trx: Trx,
  executionId: string,
  changes: Pick<
    Updateable<SkillExecutions>,
    'status' | 'error_message' | 'plan_id' | 'session_id' | 'completed_at' | 'updated_at'
  >,
  metadata: Record<string, unknown>,
): Promise<void> {
  await trx
    .updateTable('plan.skill_executions')
    .set({ ...changes, metadata: sql`metadata || ${JSON.stringify(metadata)}::jsonb` as never })
    .where('id', '=', executionId)
    .execute();
}
