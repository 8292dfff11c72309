import type { Insertable } from 'kysely';
import type { Trx } from './plans.js';
import type { PlanDatabase } from './schema.js';

type UserReviews = PlanDatabase['plan.user_reviews'];

/** Opens a review of a step (the core has just moved the step to awaiting_input); returns its id. */
export async function insertReview(trx: Trx, row: Insertable<UserReviews>): Promise<string> {
  const { id } = await trx.insertInto('plan.user_reviews').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}

/** Records the decision on the step's open review; the review's id, or undefined when none is open. */
export async function decideOpenReview(
  trx: Trx,
  stepId: string,
  decision: { decision: string; feedback: string | null; decided_session_id: string | null; decided_at: Date },
): Promise<string | undefined> {
  const row = await trx
    .updateTable('plan.user_reviews')
    .set(decision)
    .where('step_id', '=', stepId)
    .where('decision', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/** The plan's oldest review still waiting for a decision, if any. */
export async function openReviewOfPlan(trx: Trx, planId: string) {
  return trx
    .selectFrom('plan.user_reviews')
    .select(['id', 'step_id', 'summary', 'questions'])
    .where('plan_id', '=', planId)
    .where('decision', 'is', null)
    .orderBy('requested_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}
