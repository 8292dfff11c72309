import type { KeysetPosition } from '@quarry/cursors';
import { sql } from 'kysely';
import { afterPosition, nextPosition, updatedAtText } from './plan-keyset.js';
import type { PlanRow, Trx } from './plans.js';
import { type StepProgress, withStepProgress } from './active-plans.js';

export interface PlanFilter {
  /** Stored status. */
  status?: string;
  /** Words the name or research question contains, case-insensitive. */
  query?: string;
  updatedSince?: Date;
  includeArchived: boolean;
}

/** `text` as a LIKE pattern that matches it literally anywhere. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * A page of the org's plans in any status that pass `filter`, most recently updated first (ties
 * by id: research_plans_org_updated_idx), each with its steps; `next` is where the next page
 * starts, when another follows.
 */
export async function plansPage(
  trx: Trx,
  filter: PlanFilter,
  page: { after: KeysetPosition | undefined; limit: number },
): Promise<{ plans: { plan: PlanRow; steps: StepProgress[] }[]; next: KeysetPosition | undefined }> {
  let query = trx
    .selectFrom('plan.research_plans as p')
    .selectAll('p')
    .select(updatedAtText)
    .orderBy('p.updated_at', 'desc')
    .orderBy('p.id', 'desc')
    .limit(page.limit + 1);
  if (!filter.includeArchived) query = query.where('p.archived_at', 'is', null);
  if (filter.status) query = query.where('p.status', '=', filter.status);
  if (filter.updatedSince) query = query.where('p.updated_at', '>=', filter.updatedSince);
  if (filter.query) {
    const pattern = containing(filter.query);
    query = query.where((eb) =>
      eb.or([
        eb(sql`p.name`, 'ilike', sql`${pattern} escape '\\'`),
        eb(sql`p.research_question`, 'ilike', sql`${pattern} escape '\\'`),
      ]),
    );
  }
  if (page.after) query = query.where(afterPosition(page.after));
  const rows = await query.execute();
  const shown = rows.slice(0, page.limit);
  return { plans: await withStepProgress(trx, shown), next: nextPosition(shown, rows.length > page.limit) };
}

/**
 * Sets or clears the plan's archived flag; true when it changed (an archived plan archived again
 * changes nothing). The plan's status and updated_at are left alone: archiving is not work on it.
 */
export async function setArchived(trx: Trx, planId: string, archived: boolean, at: Date): Promise<boolean> {
  const result = await trx
    .updateTable('plan.research_plans')
    .set({ archived_at: archived ? at : null })
    .where('id', '=', planId)
    .where('archived_at', archived ? 'is' : 'is not', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Stores a cancellation: the status and when, from what and why, in one statement (a check ties them). */
export async function recordCancellation(
  trx: Trx,
  planId: string,
  cancellation: { at: Date; from: string; reason: string },
): Promise<void> {
  await trx
    .updateTable('plan.research_plans')
    .set({
      status: 'cancelled',
      cancelled_at: cancellation.at,
      cancelled_from: cancellation.from,
      cancellation_reason: cancellation.reason,
      updated_at: cancellation.at,
    })
    .where('id', '=', planId)
    .execute();
}
