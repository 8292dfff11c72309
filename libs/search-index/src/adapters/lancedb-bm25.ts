import * as lancedb from '@lancedb/lancedb';
import { Field, Schema, Utf8 } from 'apache-arrow';
import { CHUNK_HIT_FIELDS, chunkHitOf } from '../core/source.js';
import type { Bm25Index, ChunkHit, IndexedSource, SearchScope } from '../types.js';
import type { LanceOptions } from './lancedb.js';
import { baseFields, baseRow, byScore } from './lancedb-chunk-rows.js';
import { openTable, retried, unindexedRows } from './lancedb-open.js';
import { LanceChunkTable, type LanceUpkeep, type Row } from './lancedb-table.js';
import { lanceWhere } from './lancedb-where.js';

export type LanceBm25Index = Bm25Index & LanceUpkeep;

export async function openLanceBm25Index(options: LanceOptions): Promise<LanceBm25Index> {
  const schema = new Schema([...baseFields(), new Field('fts_text', new Utf8(), false)]);
  const { conn, table } = await openTable(options, options.table ?? 'chunks_bm25', schema);
  // The search service and the indexer may open a new directory at the same moment: the one whose
  // index creation loses the commit finds the other's index on its retry and keeps it.
  await retried(async () => {
    await table.checkoutLatest();
    if ((await table.listIndices()).some((i) => i.columns.includes('fts_text'))) return;
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
  });
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
    settle: () => store.settle(),
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
