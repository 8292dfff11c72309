import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// Idempotent writes (docs/adr/0046-idempotent-writes.md): an artifact or a research output may
// carry the caller's idempotency key and the SHA-256 of its request (what "the same content"
// means). The key is unique per org and table, so two racing writes of one key store one row;
// it lives and dies with its row (a deleted item frees its key). Additive: existing rows keep
// null keys.
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['research_artifacts', 'research_outputs']) {
    await sql`
      alter table ${sql.table(`artifact.${table}`)}
        add column idempotency_key text check (idempotency_key is null or length(idempotency_key) between 1 and 200),
        add column request_hash text check (request_hash is null or length(request_hash) = 64),
        add check ((idempotency_key is null) = (request_hash is null))
    `.execute(db);
    await sql`
      create unique index ${sql.id(`${table}_idempotency_idx`)}
        on ${sql.table(`artifact.${table}`)} (org_id, idempotency_key) where idempotency_key is not null
    `.execute(db);
  }
}
