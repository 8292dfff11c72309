import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// A deleted source keeps its indexed_sources row as a tombstone (deleted_at set, chunk_count 0,
// the content.deleted event as its version): a content.created of the same source delivered
// after the deletion — a redelivery, a replay of the log, a Kafka topic read from the start — is
// then stale and never indexes it again. The row holds ids and a hash of empty text, no content.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table indexer.indexed_sources add column deleted_at timestamptz;
    alter table indexer.indexed_sources add constraint indexed_sources_tombstone_empty
      check (deleted_at is null or chunk_count = 0);
  `.execute(db);
}
