import { enableTenantRls } from '@quarry/db';
import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// One row per indexed source: which event version its chunks in the BM25 and vector indexes
// come from. The indexer reads it to skip an event older than the one already applied (events
// arrive at least once and, across batches or partitions, out of order) and writes it only after
// both indexes hold the chunks. A source whose text became empty keeps its row (chunk_count 0),
// so an older version delivered late cannot bring the removed chunks back.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table indexer.indexed_sources (
      org_id uuid not null,
      source_table text not null check (length(source_table) between 1 and 100),
      source_id text not null check (length(source_id) between 1 and 200),
      event_id uuid not null,
      occurred_at timestamptz not null,
      text_sha256 text not null check (text_sha256 ~ '^[0-9a-f]{64}$'),
      chunk_count integer not null check (chunk_count >= 0),
      embedder text not null check (length(embedder) between 1 and 300),
      indexed_at timestamptz not null default now(),
      primary key (org_id, source_table, source_id)
    );
  `.execute(db);
  await enableTenantRls(db, 'indexer.indexed_sources');
}
