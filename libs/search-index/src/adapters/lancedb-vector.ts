import * as lancedb from '@lancedb/lancedb';
import { Field, FixedSizeList, Float32, Schema } from 'apache-arrow';
import { ANN_DEFAULTS, annPartitions, annProbes, annShouldTrain, type AnnSettings } from '../core/ann-plan.js';
import { carriedVectors, checkVectors, CHUNK_HIT_FIELDS, chunkHitOf, requestVectors } from '../core/source.js';
import type { ChunkHit, EmbedderIdentity, SearchScope, VectorIndex } from '../types.js';
import { EmbedderMismatchError } from '../types.js';
import type { LanceOptions } from './lancedb.js';
import { baseFields, baseRow, byScore } from './lancedb-chunk-rows.js';
import { openTable, unindexedRows } from './lancedb-open.js';
import { chunksBySource, LanceChunkTable, type LanceUpkeep, type Row } from './lancedb-table.js';
import { lanceWhere } from './lancedb-where.js';

const EMBEDDER_METADATA_KEY = 'quarry.embedder';

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
    settle: () => store.settle(),
    close: () => store.close(),
    ann: () => (ann ? { ...ann } : undefined),
    search: (vector, scope) => search(vector, scope, false),
    searchExact: (vector, scope) => search(vector, scope, true),
  };
}
