import * as lancedb from '@lancedb/lancedb';
import pRetry from 'p-retry';
import { Field, FixedSizeList, Float32, Int32, List, Schema, Utf8 } from 'apache-arrow';
import {
  carriedVectors,
  checkVectors,
  chunkDocument,
  CHUNK_HIT_FIELDS,
  chunkHitOf,
  chunkId,
  planUpsertMany,
  requestVectors,
  sourceKeyString,
} from '../core/source.js';
import type {
  Bm25Index,
  ChunkHit,
  EmbedderIdentity,
  IndexedChunk,
  IndexedSource,
  SearchScope,
  SourceKey,
  StoredVector,
  UpsertReport,
  VectorIndex,
} from '../types.js';
import { EmbedderMismatchError } from '../types.js';
import { lanceChunksWhere, lanceSourcesWhere, lanceWhere, sourceWhere } from './lancedb-where.js';

/**
 * Embedded defaults: LanceDB tables in a local data directory (e.g. `.quarry/search`), no
 * server. `chunks_bm25` carries a Tantivy-style full-text (BM25) index with English stemming
 * and stop words over `title + text`; `chunks_vec` holds the vectors, searched exactly (flat
 * cosine scan — 100 % recall, fast enough up to ~10^5 chunks, see ADR 0009). Rows written
 * after the FTS index was built are still searched (flat); `optimize()` folds them in.
 *
 * Tenant isolation: every query carries `org_id = '<org>'` in its `where`, which LanceDB applies
 * as a prefilter inside the scan, before ranking and before `limit` — never after.
 */
export interface LanceOptions {
  /** Data directory (created if missing). */
  dir: string;
  /** Table name; defaults to `chunks_bm25` / `chunks_vec`. */
  table?: string;
  /** Run `optimize()` after this many writing upserts/deletes (0 = never; default 100). */
  optimizeEvery?: number;
  /**
   * Also run it once this many chunk rows were written or deleted since the last run (0 = never;
   * default 1000). A batch write can carry hundreds of rows, and rows not yet folded into the FTS
   * index are searched flat, which slows every BM25 query (ADR 0009 has the figures).
   */
  optimizeEveryRows?: number;
  /**
   * How stale reads may be, in seconds, when ANOTHER process writes the same directory (the
   * search service beside a separate indexer): at most this long after the last check a read
   * looks for newer table versions. 0 = check on every read. Unset = never check, the right
   * choice when the writer shares this process and these Table objects (`quarry start`).
   */
  readConsistencyIntervalSeconds?: number;
}

const EMBEDDER_METADATA_KEY = 'quarry.embedder';

function baseFields(): Field[] {
  return [
    new Field('id', new Utf8(), false),
    new Field('org_id', new Utf8(), false),
    new Field('source_table', new Utf8(), false),
    new Field('source_id', new Utf8(), false),
    new Field('chunk_no', new Int32(), false),
    new Field('content_hash', new Utf8(), false),
    new Field('title', new Utf8(), false),
    new Field('plan_id', new Utf8(), true),
    new Field('artifact_type', new Utf8(), true),
    new Field('tags', new List(new Field('item', new Utf8(), true)), false),
    new Field('created_at', new Utf8(), true),
    new Field('text', new Utf8(), false),
    new Field('start_offset', new Int32(), false),
    new Field('end_offset', new Int32(), false),
  ];
}

type Row = Record<string, unknown>;

/** A chunk as both tables store it; each table adds its own column (`fts_text` or `vector`). */
function baseRow(source: IndexedSource, chunk: IndexedChunk): Row {
  return { id: chunkId(source, chunk.chunkNo), ...chunkDocument(source, chunk) };
}

/** Best first; ties keep source order then chunk order, so ranks are deterministic. */
function byScore(hits: ChunkHit[]): ChunkHit[] {
  return hits.sort(
    (a, b) =>
      b.score - a.score || (a.sourceId < b.sourceId ? -1 : a.sourceId > b.sourceId ? 1 : 0) || a.chunkNo - b.chunkNo,
  );
}

/** Shared write path: diff by content hash, merge-insert the changed chunks, delete the gone ones. */
class LanceChunkTable {
  private writes = 0;
  private rows = 0;
  private readonly optimizeEvery: number;
  private readonly optimizeEveryRows: number;

  constructor(
    readonly conn: lancedb.Connection,
    readonly table: lancedb.Table,
    options: Pick<LanceOptions, 'optimizeEvery' | 'optimizeEveryRows'>,
  ) {
    this.optimizeEvery = options.optimizeEvery ?? 100;
    this.optimizeEveryRows = options.optimizeEveryRows ?? 1000;
  }

  async hashes(key: SourceKey): Promise<Map<number, string>> {
    return (await this.hashesMany([key])).get(sourceKeyString(key))!;
  }

  async hashesMany(keys: readonly SourceKey[]): Promise<Map<string, Map<number, string>>> {
    const out = new Map(keys.map((k) => [sourceKeyString(k), new Map<number, string>()]));
    if (keys.length === 0) return out;
    const rows = (await this.table
      .query()
      .where(lanceSourcesWhere(keys))
      .select(['org_id', 'source_table', 'source_id', 'chunk_no', 'content_hash'])
      .limit(100_000_000)
      .toArray()) as Row[];
    for (const r of rows) {
      const key = sourceKeyString({
        orgId: String(r.org_id),
        sourceTable: String(r.source_table),
        sourceId: String(r.source_id),
      });
      out.get(key)?.set(Number(r.chunk_no), String(r.content_hash));
    }
    return out;
  }

  /** `rows` turns the planned writes into table rows (and may fetch their vectors first). */
  async upsertMany(
    sources: readonly IndexedSource[],
    rows: (writes: { source: IndexedSource; chunk: IndexedChunk }[]) => Promise<Row[]>,
  ): Promise<UpsertReport[]> {
    const plan = planUpsertMany(await this.hashesMany(sources), sources);
    if (plan.writes.length > 0) {
      const data = await rows(plan.writes);
      await this.table.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data);
    }
    if (plan.removes.length > 0) await this.table.delete(lanceChunksWhere(plan.removes));
    const changed = plan.writes.length + plan.removes.reduce((n, r) => n + r.chunkNos.length, 0);
    if (changed > 0) await this.wrote(changed);
    return plan.reports;
  }

  /** Every write adds a fragment and unindexed rows; fold them in now and then or lookups slow down linearly. */
  private async wrote(rows: number): Promise<void> {
    this.writes++;
    this.rows += rows;
    if (
      (this.optimizeEvery > 0 && this.writes >= this.optimizeEvery) ||
      (this.optimizeEveryRows > 0 && this.rows >= this.optimizeEveryRows)
    )
      await this.optimize();
  }

  async deleteSource(key: SourceKey): Promise<number> {
    const result = await this.table.delete(sourceWhere(key));
    const deleted = Number(result.numDeletedRows ?? 0);
    if (deleted > 0) await this.wrote(deleted);
    return deleted;
  }

  /** Compact fragments, fold new rows into the FTS / scalar indexes, drop versions older than a minute. */
  async optimize(): Promise<void> {
    this.writes = 0;
    this.rows = 0;
    await this.table.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
  }

  async close(): Promise<void> {
    this.table.close();
    this.conn.close();
  }
}

/**
 * The search service and the indexer may open the same directory at the same moment (separate
 * processes): one can find the table half created ("exists but could not be loaded") or lose a
 * commit race on the column or index it adds. The open is retried a few times, briefly.
 */
async function openTable(
  options: LanceOptions,
  name: string,
  schema: Schema,
): Promise<{ conn: lancedb.Connection; table: lancedb.Table }> {
  return pRetry(() => openTableOnce(options, name, schema), { retries: 5, minTimeout: 50, maxTimeout: 1_000 });
}

async function openTableOnce(
  options: LanceOptions,
  name: string,
  schema: Schema,
): Promise<{ conn: lancedb.Connection; table: lancedb.Table }> {
  const interval = options.readConsistencyIntervalSeconds;
  const conn = await lancedb.connect(options.dir, interval === undefined ? {} : { readConsistencyInterval: interval });
  try {
    return { conn, table: await prepareTable(conn, name, schema) };
  } catch (error) {
    conn.close();
    throw error;
  }
}

async function prepareTable(conn: lancedb.Connection, name: string, schema: Schema): Promise<lancedb.Table> {
  const table = (await conn.tableNames()).includes(name)
    ? await conn.openTable(name)
    : await conn.createEmptyTable(name, schema, { mode: 'create', existOk: true });
  // Tables made before documents carried created_at get it as an all-null column (LanceDB adds
  // a column without rewriting the data); the next version of each source fills it.
  if (!(await table.schema()).fields.some((f) => f.name === 'created_at')) {
    await table.addColumns([{ name: 'created_at', valueSql: 'CAST(NULL AS string)' }]);
  }
  // Upserts look up a source's stored hashes; a B-tree on source_id keeps that off a full scan.
  if (!(await table.listIndices()).some((i) => i.columns.includes('source_id'))) {
    await table.createIndex('source_id', { config: lancedb.Index.btree(), replace: true });
  }
  return table;
}

export type LanceBm25Index = Bm25Index & { optimize(): Promise<void> };

export async function openLanceBm25Index(options: LanceOptions): Promise<LanceBm25Index> {
  const schema = new Schema([...baseFields(), new Field('fts_text', new Utf8(), false)]);
  const { conn, table } = await openTable(options, options.table ?? 'chunks_bm25', schema);
  if (!(await table.listIndices()).some((i) => i.columns.includes('fts_text'))) {
    await table.createIndex('fts_text', {
      config: lancedb.Index.fts({
        language: 'English',
        stem: true,
        removeStopWords: true,
        lowercase: true,
        asciiFolding: true,
        withPosition: false,
      }),
      replace: true,
    });
  }
  const store = new LanceChunkTable(conn, table, options);
  const upsertMany = (sources: readonly IndexedSource[]) =>
    store.upsertMany(sources, async (writes) =>
      writes.map(({ source, chunk }) => ({ ...baseRow(source, chunk), fts_text: `${source.title}\n${chunk.text}` })),
    );
  return {
    upsertMany,
    upsert: async (s) => (await upsertMany([s]))[0]!,
    deleteSource: (k) => store.deleteSource(k),
    hashes: (k) => store.hashes(k),
    hashesMany: (k) => store.hashesMany(k),
    optimize: () => store.optimize(),
    close: () => store.close(),
    async search(query: string, scope: SearchScope): Promise<ChunkHit[]> {
      if (query.trim() === '') return [];
      const rows = (await table
        .query()
        .fullTextSearch(query, { columns: 'fts_text' })
        .where(lanceWhere(scope.orgId, scope.filters))
        .select([...CHUNK_HIT_FIELDS, '_score'])
        .limit(scope.limit)
        .toArray()) as Row[];
      // LanceDB 0.37 can return FTS rows unordered (union of indexed and unindexed parts): rank here.
      return byScore(rows.map((r) => chunkHitOf(r, Number(r._score))));
    },
  };
}

export type LanceVectorIndex = VectorIndex & { optimize(): Promise<void> };

export async function openLanceVectorIndex(
  options: LanceOptions & { embedder: EmbedderIdentity },
): Promise<LanceVectorIndex> {
  const { embedder } = options;
  const meta = new Map([[EMBEDDER_METADATA_KEY, JSON.stringify({ id: embedder.id, dimension: embedder.dimension })]]);
  const schema = new Schema(
    [
      ...baseFields(),
      new Field('vector', new FixedSizeList(embedder.dimension, new Field('item', new Float32(), true)), false),
    ],
    meta,
  );
  const { conn, table } = await openTable(options, options.table ?? 'chunks_vec', schema);
  const storedRaw = (await table.schema()).metadata.get(EMBEDDER_METADATA_KEY);
  const stored = storedRaw ? (JSON.parse(storedRaw) as EmbedderIdentity) : undefined;
  if (!stored || stored.id !== embedder.id || stored.dimension !== embedder.dimension) {
    table.close();
    conn.close();
    throw new EmbedderMismatchError(stored ?? { id: 'unknown', dimension: 0 }, embedder);
  }
  const store = new LanceChunkTable(conn, table, options);
  const upsertMany: VectorIndex['upsertMany'] = (sources, vectors) =>
    store.upsertMany(sources, async (writes) => {
      const got = await requestVectors(
        vectors,
        writes.map((w) => w.chunk),
        embedder,
      );
      return writes.map(({ source, chunk }, i) => ({ ...baseRow(source, chunk), vector: got[i] }));
    });
  return {
    embedder: Object.freeze({ ...embedder }),
    upsertMany,
    upsert: async (s) => {
      checkVectors(s, embedder);
      return (await upsertMany([s], carriedVectors(s)))[0]!;
    },
    deleteSource: (k) => store.deleteSource(k),
    hashes: (k) => store.hashes(k),
    hashesMany: (k) => store.hashesMany(k),
    async storedVectors(keys) {
      const out = new Map(keys.map((k) => [sourceKeyString(k), new Map<number, StoredVector>()]));
      if (keys.length === 0) return out;
      const rows = (await table
        .query()
        .where(lanceSourcesWhere(keys))
        .select(['org_id', 'source_table', 'source_id', 'chunk_no', 'text', 'vector'])
        .limit(100_000_000)
        .toArray()) as Row[];
      for (const r of rows) {
        const key = sourceKeyString({
          orgId: String(r.org_id),
          sourceTable: String(r.source_table),
          sourceId: String(r.source_id),
        });
        out.get(key)?.set(Number(r.chunk_no), {
          text: String(r.text),
          vector: Array.from(r.vector as Iterable<number>),
        });
      }
      return out;
    },
    optimize: () => store.optimize(),
    close: () => store.close(),
    async search(vector: number[], scope: SearchScope): Promise<ChunkHit[]> {
      if (vector.length !== embedder.dimension)
        throw new EmbedderMismatchError(embedder, { id: 'query vector', dimension: vector.length });
      if (!vector.some((x) => x !== 0)) return []; // no features: cosine is undefined
      const rows = (await table
        .query()
        .nearestTo(vector)
        .distanceType('cosine')
        .where(lanceWhere(scope.orgId, scope.filters))
        .select([...CHUNK_HIT_FIELDS, '_distance'])
        .limit(scope.limit)
        .toArray()) as Row[];
      return byScore(rows.map((r) => chunkHitOf(r, 1 - Number(r._distance))));
    },
  };
}

/** Drop the named tables of a LanceDB directory if they exist (reindex). */
export async function dropLanceTables(dir: string, tables: readonly string[]): Promise<void> {
  const conn = await lancedb.connect(dir);
  try {
    const existing = new Set(await conn.tableNames());
    for (const name of tables) if (existing.has(name)) await conn.dropTable(name);
  } finally {
    conn.close();
  }
}
