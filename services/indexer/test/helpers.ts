import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { sql, withTenant, type AnyDb } from '@quarry/db';
import { seededRandom } from '@quarry/testing';
import {
  appendContentEvent,
  toDeliveredEvent,
  type ContentCreatedV1,
  type ContentEventInput,
  type ContentEventV1,
  type DeliveredEvent,
  type OutboxRecord,
} from '@quarry/events';
import {
  createLocalEmbedder,
  openLanceBm25Index,
  openLanceVectorIndex,
  type Embedder,
  type SearchBackends,
} from '@quarry/search-index';

export const tempDir = (prefix: string): string => mkdtempSync(join(tmpdir(), `quarry-indexer-${prefix}-`));

/** The real local embedder, counting what it is asked to embed. */
export function countingEmbedder(inner: Embedder = createLocalEmbedder()): Embedder & { calls: number; texts: number } {
  const counter = {
    calls: 0,
    texts: 0,
    lexical: inner.lexical,
    identity: () => inner.identity(),
    embed: async (texts: readonly string[]) => {
      counter.calls++;
      counter.texts += texts.length;
      return inner.embed(texts);
    },
  };
  return counter;
}

export type TestBackends = Pick<SearchBackends, 'bm25' | 'vectors' | 'embedder'> & {
  embedder: ReturnType<typeof countingEmbedder>;
  dir: string;
  close(): Promise<void>;
};

/** Real embedded LanceDB indexes in a fresh directory, with the real local embedder (counted). */
export async function openTestBackends(dir = tempDir('lance'), embedder = countingEmbedder()): Promise<TestBackends> {
  const bm25 = await openLanceBm25Index({ dir });
  const vectors = await openLanceVectorIndex({ dir, embedder: await embedder.identity() });
  return {
    bm25,
    vectors,
    embedder,
    dir,
    async close() {
      await bm25.close();
      await vectors.close();
    },
  };
}

/** Append one content event the real way: in a transaction of the event's tenant. Returns its outbox row as delivered. */
export async function appendEvent(
  database: { app: AnyDb; admin: AnyDb },
  input: ContentEventInput,
): Promise<DeliveredEvent> {
  const { eventId } = await withTenant(database.app, { orgId: input.orgId }, (trx) => appendContentEvent(trx, input));
  const { rows } = await sql<OutboxRecord>`select * from events.outbox where event_id = ${eventId}`.execute(
    database.admin,
  );
  const delivered = rows[0] && toDeliveredEvent(rows[0]);
  if (!delivered) throw new Error(`outbox row of ${eventId} is missing or invalid`);
  return delivered;
}

export interface ChunkRow {
  id: string;
  content_hash: string;
  text: string;
  vector?: string;
}

/** Every row of a LanceDB chunk table (id, content hash, text, vector hash), sorted by id. */
export async function dumpTable(
  dir: string,
  table: 'chunks_bm25' | 'chunks_vec',
  orgIds?: readonly string[],
): Promise<ChunkRow[]> {
  const conn = await lancedb.connect(dir);
  try {
    const t = await conn.openTable(table);
    let query = t.query();
    if (orgIds) query = query.where(`org_id IN (${orgIds.map((o) => `'${o}'`).join(', ')})`);
    const rows = (await query.limit(10_000_000).toArray()) as Array<Record<string, unknown>>;
    t.close();
    return rows
      .map((r) => ({
        id: String(r.id),
        content_hash: String(r.content_hash),
        text: String(r.text),
        ...(table === 'chunks_vec' ? { vector: vectorHash(r.vector) } : {}),
      }))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  } finally {
    conn.close();
  }
}

function vectorHash(value: unknown): string {
  const v = value as { toArray?: () => ArrayLike<number> } | ArrayLike<number>;
  const numbers = Float32Array.from(
    typeof (v as { toArray?: unknown }).toArray === 'function'
      ? (v as { toArray: () => ArrayLike<number> }).toArray()
      : (v as ArrayLike<number>),
  );
  return createHash('sha256')
    .update(Buffer.from(numbers.buffer, numbers.byteOffset, numbers.byteLength))
    .digest('hex');
}

/** indexer.indexed_sources of the given orgs (all columns but indexed_at), read as admin, sorted. */
export async function dumpIndexedSources(admin: AnyDb, orgIds: readonly string[]) {
  const { rows } = await sql<Record<string, unknown>>`
    select org_id, source_table, source_id, event_id, occurred_at, text_sha256, chunk_count, embedder
    from indexer.indexed_sources where org_id = any(${[...orgIds]}::uuid[])
    order by org_id, source_table, source_id`.execute(admin);
  return rows;
}

/** Words enough for several chunks: `n` sentences about `topic`, each with a distinct number. */
export const prose = (topic: string, n: number): string =>
  Array.from({ length: n }, (_, i) => `Sentence ${i} discusses ${topic} and its effect number ${i * 7}.`).join(' ');

/** Deterministic shuffle. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = seededRandom(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export async function waitUntil(
  condition: () => Promise<boolean> | boolean,
  timeoutMs: number,
  what: string,
  everyMs = 25,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The content.created event a test appended (a deletion here is a mistake in the test). */
export function createdOf(delivered: { event: ContentEventV1 }): ContentCreatedV1 {
  if (delivered.event.type !== 'content.created')
    throw new Error(`expected content.created, got ${delivered.event.type}`);
  return delivered.event;
}
