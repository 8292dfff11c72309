import type { Selectable } from 'kysely';
import type { Trx } from './plans.js';
import type { PlanDatabase } from './schema.js';

export type OutputPreferencesRow = Selectable<PlanDatabase['plan.output_preferences']>;

/** The org's output preferences (one row per org, row-level security picks it), if it set any. */
export async function outputPreferences(trx: Trx): Promise<OutputPreferencesRow | undefined> {
  return trx.selectFrom('plan.output_preferences').selectAll().executeTakeFirst();
}
