import type { Insertable } from 'kysely';
import type { Trx } from './plans.js';
import type { PlanDatabase } from './schema.js';

/** Stores feedback on a plan; returns its id (the audit row names it). */
export async function insertFeedback(
  trx: Trx,
  row: Insertable<PlanDatabase['plan.research_feedback']>,
): Promise<string> {
  const { id } = await trx.insertInto('plan.research_feedback').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}
