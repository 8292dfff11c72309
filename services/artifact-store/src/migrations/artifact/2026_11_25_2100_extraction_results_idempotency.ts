import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// Results submitted by the caller's own model (submit_extraction) are stored with provider
// 'client' and an idempotency key (the submission handle's), so a handle submitted twice stores
// one row and one content.created event. Additive: existing rows keep a null key.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table artifact.extraction_results add column idempotency_key text
      check (idempotency_key is null or length(idempotency_key) between 1 and 200);
    create unique index extraction_results_idempotency_idx
      on artifact.extraction_results (org_id, idempotency_key) where idempotency_key is not null;
    alter table artifact.extraction_results drop constraint extraction_results_provider_check;
    alter table artifact.extraction_results add constraint extraction_results_provider_check
      check (provider in ('anthropic', 'openai', 'sampling', 'client', 'heuristic'));
  `.execute(db);
}
