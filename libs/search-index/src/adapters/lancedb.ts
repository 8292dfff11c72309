import * as lancedb from '@lancedb/lancedb';
import { Field, FixedSizeList, Float32, Int32, List, Schema, Utf8 } from 'apache-arrow';
import { ANN_DEFAULTS, annPartitions, annProbes, annShouldTrain, type AnnSettings } from '../core/ann-plan.js';
import {
  carriedVectors,
  checkVectors,
  chunkDocument,
  CHUNK_HIT_FIELDS,
  chunkHitOf,
  chunkId,
  requestVectors,
} from '../core/source.js';
import type {
  Bm25Index,
  ChunkHit,
  EmbedderIdentity,
  IndexedChunk,
  IndexedSource,
  SearchScope,
  VectorIndex,
} from '../types.js';
import { EmbedderMismatchError } from '../types.js';
import { chunksBySource, LanceChunkTable, openTable, type MaintenanceOptions, type Row } from './lancedb-table.js';
import { lanceWhere } from './lancedb-where.js';

/**
 * Embedded defaults: LanceDB tables in a local data directory (e.g. `.quarry/search`), no
 * server. `chunks_bm25` carries a Tantivy-style full-text (BM25) index with English stemming
 * and stop words over `title + text`; `chunks_vec` holds the vectors, searched exactly (flat
 * cosine scan) while small and through an IVF_FLAT index once it holds `ann.minRows` rows
 * (ADR 0037). Rows written after an index was built are still searched (flat); a background fold
 * (`LanceChunkTable`) puts them into the indexes shortly after every write.
 *
 * Tenant isolation: every query carries `org_id = '<org>'` in its `where`, which LanceDB applies
 * as a prefilter inside the scan (indexed or flat), before ranking and before `limit` — never after.
 */
export interface LanceOptions extends MaintenanceOptions {
  /** Data directory (created if missing). */
  dir: string;
  /** Table name; defaults to `chunks_bm25` / `chunks_vec`. */
  table?: string;
  /**
   * How stale reads may be, in seconds, when ANOTHER process writes the same directory (the
   * search service beside a separate indexer): at most this long after the last check a read
   * looks for newer table versions. 0 = check on every read. Unset = never check, the right
   * choice when the writer shares this process and these Table objects (`quarry start`).
   */
  readConsistencyIntervalSeconds?: number;
  /**
   * LanceDB's caches (decoded index pages, file metadata). Unset = a session of LanceDB's own
   * per connection, 6 GB of index and 1 GB of metadata cache each; `lanceSession` gives both
   * tables one session with bounded caches (ADR 0037).
   */
  session?: lancedb.Session;
}

/** Cache sizes, in MiB, of the LanceDB session both embedded tables share. */
export interface LanceCacheSizes {
  indexCacheMb: number;
  metadataCacheMb: number;
}

/** One LanceDB session with bounded caches, to be passed to both tables of a directory. */
export function lanceSession(sizes: LanceCacheSizes): lancedb.Session {
  const bytes = (mb: number) => BigInt(Math.round(mb * 2 ** 20));
  return new lancedb.Session(bytes(sizes.indexCacheMb), bytes(sizes.metadataCacheMb));
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

/** What the embedded tables add to the ports: upkeep a benchmark can force, wait for and observe. */
interface LanceUpkeep {
  /** Fold written rows into the indexes now (after a fold already running). */
  optimize(): Promise<void>;
  /** Resolves when no background fold is running, queued or scheduled. */
  idle(): Promise<void>;
  /** Rows outside the table's main index (FTS or ANN), searched flat until the next fold. */
  unindexedRows(): Promise<number>;
}

export type LanceBm25Index = Bm25Index & LanceUpkeep;

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
  // A tail left unindexed by an earlier process (stopped before its fold) is folded in now — by a
  // writer: a reader apart from the writer (readConsistencyIntervalSeconds set) never writes.
  if (options.readConsistencyIntervalSeconds === undefined && (await unindexedRows(table, 'fts_text')) > 0)
    store.background();
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
    idle: () => store.idle(),
    unindexedRows: () => unindexedRows(table, 'fts_text'),
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

/** The vector table's ANN index as a search uses it: trained on `trainedRows` rows, `probes` of `partitions` probed. */
export interface LanceAnnState {
  trainedRows: number;
  partitions: number;
  probes: number;
}

export type LanceVectorIndex = VectorIndex &
  LanceUpkeep & {
    /** The ANN index searches use now; undefined while the table is searched exactly. */
    ann(): LanceAnnState | undefined;
    /** `search` by an exact scan whatever the index (the reference a recall is measured against). */
    searchExact(vector: number[], scope: SearchScope): Promise<ChunkHit[]>;
  };

/** Rows of `table` outside its index on `column` (0 when there is no such index). */
async function unindexedRows(table: lancedb.Table, column: string): Promise<number> {
  const index = (await table.listIndices()).find((i) => i.columns.includes(column));
  return index ? ((await table.indexStats(index.name))?.numUnindexedRows ?? 0) : 0;
}

/**
 * The ANN index another process (or an earlier run) built: its partition count is not stored,
 * so it is taken from the rows the index holds now, which is at least what it was trained on:
 * the estimate errs towards more partitions, hence more probes — slower, never less recall.
 */
async function storedAnnState(table: lancedb.Table, settings: AnnSettings): Promise<LanceAnnState | undefined> {
  const index = (await table.listIndices()).find((i) => i.columns.includes('vector'));
  const stats = index && (await table.indexStats(index.name));
  if (!stats) return undefined;
  const partitions = annPartitions(stats.numIndexedRows);
  return { trainedRows: stats.numIndexedRows, partitions, probes: annProbes(partitions, settings) };
}

export async function openLanceVectorIndex(
  options: LanceOptions & { embedder: EmbedderIdentity; ann?: Partial<AnnSettings> },
): Promise<LanceVectorIndex> {
  const settings: AnnSettings = { ...ANN_DEFAULTS, ...options.ann };
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
  let ann = await storedAnnState(table, settings);
  let annCheckedAt = Date.now();
  // Trains (or retrains) the IVF_FLAT index after a fold when the table has grown enough. The
  // build reads a snapshot: writes go on meanwhile, their rows are searched flat until the next fold.
  const trainAnn = async (): Promise<void> => {
    const rows = await table.countRows();
    if (!annShouldTrain(rows, ann?.trainedRows, settings)) return;
    const partitions = annPartitions(rows);
    await table.createIndex('vector', {
      config: lancedb.Index.ivfFlat({ distanceType: 'cosine', numPartitions: partitions }),
      replace: true,
    });
    ann = { trainedRows: rows, partitions, probes: annProbes(partitions, settings) };
  };
  const store = new LanceChunkTable(conn, table, options, trainAnn);
  if (
    options.readConsistencyIntervalSeconds === undefined &&
    annShouldTrain(await table.countRows(), ann?.trainedRows, settings)
  )
    store.background();
  // A reader apart from the writer (readConsistencyIntervalSeconds set) learns of an index the
  // writer built from the table itself, as often as it looks for new versions (at most every second).
  const refreshEveryMs = Math.max(1, options.readConsistencyIntervalSeconds ?? 0) * 1000;
  const refreshAnn = async (): Promise<void> => {
    if (options.readConsistencyIntervalSeconds === undefined || Date.now() - annCheckedAt < refreshEveryMs) return;
    annCheckedAt = Date.now();
    ann = await storedAnnState(table, settings);
  };
  const search = async (vector: number[], scope: SearchScope, exact: boolean): Promise<ChunkHit[]> => {
    if (vector.length !== embedder.dimension)
      throw new EmbedderMismatchError(embedder, { id: 'query vector', dimension: vector.length });
    if (!vector.some((x) => x !== 0)) return []; // no features: cosine is undefined
    if (!exact) await refreshAnn();
    let query = table
      .query()
      .nearestTo(vector)
      .distanceType('cosine')
      .where(lanceWhere(scope.orgId, scope.filters))
      .select([...CHUNK_HIT_FIELDS, '_distance'])
      .limit(scope.limit);
    // IVF_FLAT keeps full vectors: the probed partitions are scored exactly, no refine step needed.
    if (exact) query = query.bypassVectorIndex();
    else if (ann) query = query.nprobes(ann.probes);
    const rows = (await query.toArray()) as Row[];
    return byScore(rows.map((r) => chunkHitOf(r, 1 - Number(r._distance))));
  };
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
    storedVectors: (keys) =>
      chunksBySource(table, keys, ['text', 'vector'], (r) => ({
        text: String(r.text),
        vector: Array.from(r.vector as Iterable<number>),
      })),
    optimize: () => store.optimize(),
    idle: () => store.idle(),
    unindexedRows: () => unindexedRows(table, 'vector'),
    close: () => store.close(),
    ann: () => (ann ? { ...ann } : undefined),
    search: (vector, scope) => search(vector, scope, false),
    searchExact: (vector, scope) => search(vector, scope, true),
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
