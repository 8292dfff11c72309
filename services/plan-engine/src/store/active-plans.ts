import type { KeysetPosition } from '@quarry/cursors';
import type { PlanStep, StepStatus } from '../core/index.js';
import { afterPosition, nextPosition, updatedAtText } from './plan-keyset.js';
import type { PlanRow, Trx } from './plans.js';

/** What the list needs of a step to report progress and stalls (the core's rules decide both). */
export type StepProgress = Pick<PlanStep, 'id' | 'status' | 'startedAt'>;

/** Not finished and not archived (research_plans_listed_active_idx). */
const activePlans = (trx: Trx) =>
  trx
    .selectFrom('plan.research_plans as p')
    .where('p.status', 'not in', ['completed', 'failed', 'cancelled'])
    .where('p.archived_at', 'is', null);

/** How many plans of the org are not finished (archived ones left out). */
export async function countActivePlans(trx: Trx): Promise<number> {
  const { count } = await activePlans(trx)
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/**
 * Up to `limit` (or all) unfinished plans after `after`, most recently updated first (ties by
 * id), each with its steps; `next` is where the next page starts, when another follows.
 */
export async function activePlansPage(
  trx: Trx,
  page: { after: KeysetPosition | undefined; limit: number | undefined },
): Promise<{ plans: { plan: PlanRow; steps: StepProgress[] }[]; next: KeysetPosition | undefined }> {
  let query = activePlans(trx)
    .selectAll('p')
    .select(updatedAtText)
    .orderBy('p.updated_at', 'desc')
    .orderBy('p.id', 'desc');
  if (page.limit !== undefined) query = query.limit(page.limit + 1);
  if (page.after) query = query.where(afterPosition(page.after));
  const rows = await query.execute();
  const shown = page.limit === undefined ? rows : rows.slice(0, page.limit);
  return { plans: await withStepProgress(trx, shown), next: nextPosition(shown, rows.length > shown.length) };
}

/** Each plan with the progress fields of its steps, in one query. */
export async function withStepProgress(
  trx: Trx,
  shown: PlanRow[],
): Promise<{ plan: PlanRow; steps: StepProgress[] }[]> {
  const steps =
    shown.length === 0
      ? []
      : await trx
          .selectFrom('plan.plan_steps')
          .select(['id', 'plan_id', 'status', 'started_at'])
          .where(
            'plan_id',
            'in',
            shown.map((plan) => plan.id),
          )
          .execute();
  const stepsOf = (planId: string): StepProgress[] =>
    steps
      .filter((step) => step.plan_id === planId)
      .map((step) => ({ id: step.id, status: step.status as StepStatus, startedAt: step.started_at }));
  return shown.map((plan) => ({ plan, steps: stepsOf(plan.id) }));
}
