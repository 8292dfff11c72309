import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// An organization's default research depth, beside its output preferences: null until it
// chooses one (get_research_context then leaves it out, as before).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table plan.output_preferences
      add column default_depth text check (default_depth in ('scan', 'standard', 'deep'));
  `.execute(db);
}
