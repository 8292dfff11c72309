import type { JsonValue, PlanStatus } from '../core/index.js';
import type { Trx } from './plans.js';

/** The answer a keyed submit_step_result gave, replayed to every retry with the same key. */
export interface StoredSubmission {
  stepId: string;
  planStatus: PlanStatus;
}

/** The earlier submission with this idempotency key on the plan, if any. */
export async function earlierSubmission(
  trx: Trx,
  planId: string,
  idempotencyKey: string,
): Promise<StoredSubmission | undefined> {
  const row = await trx
    .selectFrom('plan.step_result_submissions')
    .select(['step_id', 'response'])
    .where('plan_id', '=', planId)
    .where('idempotency_key', '=', idempotencyKey)
    .executeTakeFirst();
  if (!row) return undefined;
  return { stepId: row.step_id, planStatus: (row.response as { [key: string]: JsonValue }).planStatus as PlanStatus };
}

export async function recordSubmission(
  trx: Trx,
  submission: { orgId: string; planId: string; idempotencyKey: string; stepId: string; planStatus: PlanStatus },
): Promise<void> {
  await trx
    .insertInto('plan.step_result_submissions')
    .values({
      org_id: submission.orgId,
      plan_id: submission.planId,
      idempotency_key: submission.idempotencyKey,
      step_id: submission.stepId,
      response: JSON.stringify({ submitted: true, planStatus: submission.planStatus }),
    })
    .execute();
}
