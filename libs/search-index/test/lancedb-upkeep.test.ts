import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from '@jest/globals';
import * as lancedb from '@lancedb/lancedb';
import {
  createLocalEmbedder,
  openLanceBm25Index,
  openLanceVectorIndex,
  prepareSource,
  sourceKeyString,
  type IndexedSource,
} from '../src/index.js';
import { indexContract } from './contract.js';

const dirs: string[] = [];
const scratch = (name: string): string => {
  const dir = mkdtempSync(join(tmpdir(), `quarry-search-${name}-`));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

// The whole contract again with the vectors behind an IVF index from the first fold on (every
// partition probed, so rankings are the exact ones): the org prefilter and the filters must hold
// on the indexed path as on the flat scan.
const annDir = scratch('ann-contract');
indexContract('embedded LanceDB, vectors through the IVF index', {
  bm25: () => openLanceBm25Index({ dir: annDir, optimizeEvery: 3 }),
  vectors: (embedder) =>
    openLanceVectorIndex({ dir: annDir, embedder, optimizeEvery: 3, ann: { minRows: 1, probeFraction: 1 } }),
});

const embedder = createLocalEmbedder({ dimension: 64 });
const WORDS = ['basalt', 'cirrus', 'delta', 'estuary', 'fjord', 'geyser', 'harbour', 'isthmus', 'jungle', 'karst'];
/** `n` one-chunk sources of org `orgId`, each with a text of its own. */
const sources = (orgId: string, n: number, from = 0): IndexedSource[] =>
  Array.from({ length: n }, (_, k) => {
    const i = from + k;
    const text = `${WORDS[i % 10]} ${WORDS[Math.floor(i / 10) % 10]} survey number ${i} of the ${WORDS[(i * 7) % 10]} coast.`;
    return prepareSource({ orgId, sourceTable: 't', sourceId: `s${i}`, title: `Survey ${i}` }, text);
  });
const vectorsOf = async (chunks: readonly { text: string }[]) => embedder.embed(chunks.map((c) => c.text));

/** What LanceDB itself reports about a table's index on `column`, through a connection of its own. */
async function indexOn(dir: string, tableName: string, column: string) {
  const conn = await lancedb.connect(dir);
  const table = await conn.openTable(tableName);
  try {
    const index = (await table.listIndices()).find((i) => i.columns.includes(column));
    return index && { type: index.indexType, ...(await table.indexStats(index.name))! };
  } finally {
    table.close();
    conn.close();
  }
}

describe('LanceDB background fold', () => {
  it('folds written rows into the FTS index shortly after a write, without the write waiting for it', async () => {
    const dir = scratch('fold');
    const bm25 = await openLanceBm25Index({ dir, optimizeEvery: 0, optimizeEveryRows: 0, optimizeWithinMs: 200 });
    try {
      await bm25.upsertMany(sources('o', 6));
      expect((await indexOn(dir, 'chunks_bm25', 'fts_text'))!.numUnindexedRows).toBe(6);
      // Found before the fold (the tail is searched flat)…
      expect((await bm25.search('fjord', { orgId: 'o', limit: 10 })).length).toBeGreaterThan(0);
      const started = performance.now();
      await bm25.idle();
      // …and folded in without any further write or explicit optimize(), within the bound.
      expect(performance.now() - started).toBeGreaterThanOrEqual(150);
      expect(await bm25.unindexedRows()).toBe(0);
      expect((await indexOn(dir, 'chunks_bm25', 'fts_text'))!.numUnindexedRows).toBe(0);
    } finally {
      await bm25.close();
    }
  });

  it('folds a tail an earlier process left behind when the table is opened again', async () => {
    const dir = scratch('tail');
    const first = await openLanceBm25Index({ dir, optimizeEvery: 0, optimizeEveryRows: 0, optimizeWithinMs: 0 });
    await first.upsertMany(sources('o', 5));
    await first.close();
    expect((await indexOn(dir, 'chunks_bm25', 'fts_text'))!.numUnindexedRows).toBe(5);
    const second = await openLanceBm25Index({ dir, optimizeEvery: 0, optimizeEveryRows: 0, optimizeWithinMs: 0 });
    await second.close(); // waits for the fold it started
    expect((await indexOn(dir, 'chunks_bm25', 'fts_text'))!.numUnindexedRows).toBe(0);
  });
});

describe('LanceDB writes during folds', () => {
  it('loses nothing when inserts, rewrites and deletes go on while a fold (and ANN training) runs after every write', async () => {
    const dir = scratch('busy');
    const identity = await embedder.identity();
    const options = { dir, optimizeEvery: 1, ann: { minRows: 8, retrainGrowth: 1.2 } };
    const [bm25, vectors] = [
      await openLanceBm25Index(options),
      await openLanceVectorIndex({ ...options, embedder: identity }),
    ];
    try {
      const all = sources('o', 40);
      for (let i = 0; i < all.length; i++) {
        const rewrite = i >= 1 ? [prepareSource(all[i - 1]!, `Rewritten survey ${i - 1} of the lagoon.`)] : [];
        await Promise.all([
          bm25.upsertMany([all[i]!, ...rewrite]),
          vectors.upsertMany([all[i]!, ...rewrite], vectorsOf),
        ]);
        if (i >= 2 && i % 3 === 0) {
          const gone = { orgId: 'o', sourceTable: 't', sourceId: `s${i - 2}` };
          await Promise.all([bm25.deleteSource(gone), vectors.deleteSource(gone)]);
        }
      }
      await Promise.all([bm25.idle(), vectors.idle()]);
      const kept = all.filter((_, j) => !(j >= 1 && j <= 37 && (j + 2) % 3 === 0));
      for (const index of [bm25, vectors]) {
        const stored = await index.hashesMany(all);
        const present = all.filter((s) => stored.get(sourceKeyString(s))?.size);
        expect(present.map((s) => s.sourceId)).toEqual(kept.map((s) => s.sourceId));
      }
      expect(vectors.ann()).toBeDefined();
      const rewritten = (await bm25.search('lagoon', { orgId: 'o', limit: 50 })).map((h) => h.sourceId);
      expect(new Set(rewritten)).toEqual(new Set(kept.slice(0, -1).map((s) => s.sourceId)));
    } finally {
      await bm25.close();
      await vectors.close();
    }
  });
});

describe('LanceDB vector ANN index', () => {
  const quiet = { optimizeEvery: 0, optimizeEveryRows: 0, optimizeWithinMs: 0 };

  it('is trained once the table holds minRows rows, probes 60 % of its partitions, and is retrained when the table doubles', async () => {
    const dir = scratch('ann');
    const index = await openLanceVectorIndex({
      dir,
      embedder: await embedder.identity(),
      ...quiet,
      ann: { minRows: 40 },
    });
    try {
      await index.upsertMany(sources('o', 30), vectorsOf);
      await index.optimize();
      expect(index.ann()).toBeUndefined();
      expect(await indexOn(dir, 'chunks_vec', 'vector')).toBeUndefined();

      await index.upsertMany(sources('o', 20, 30), vectorsOf);
      await index.optimize();
      expect(index.ann()).toEqual({ trainedRows: 50, partitions: 7, probes: 5 });
      expect(await indexOn(dir, 'chunks_vec', 'vector')).toMatchObject({ type: 'IvfFlat', numIndexedRows: 50 });

      // Grown, not doubled: the new rows are folded into the same partitions.
      await index.upsertMany(sources('o', 40, 50), vectorsOf);
      await index.optimize();
      expect(index.ann()!.trainedRows).toBe(50);
      expect(await indexOn(dir, 'chunks_vec', 'vector')).toMatchObject({ numIndexedRows: 90, numUnindexedRows: 0 });

      await index.upsertMany(sources('o', 10, 90), vectorsOf);
      await index.optimize();
      expect(index.ann()).toEqual({ trainedRows: 100, partitions: 10, probes: 6 });
    } finally {
      await index.close();
    }
  });

  it('finds rows written after the index was built before any fold, and never another org’s', async () => {
    const dir = scratch('ann-tail');
    const index = await openLanceVectorIndex({
      dir,
      embedder: await embedder.identity(),
      ...quiet,
      ann: { minRows: 20, probeFraction: 1 },
    });
    try {
      await index.upsertMany(sources('o', 40), vectorsOf);
      await index.optimize();
      expect(index.ann()).toBeDefined();
      const late = prepareSource(
        { orgId: 'o', sourceTable: 't', sourceId: 'late', title: 'Volcanic tephra' },
        'Volcanic tephra layers dated by argon isotopes.',
      );
      const elsewhere = prepareSource(
        { orgId: 'p', sourceTable: 't', sourceId: 'late-p', title: 'Volcanic tephra argon' },
        'Volcanic tephra argon, argon, tephra.',
      );
      await index.upsertMany([late, elsewhere], vectorsOf);
      const [query] = await embedder.embed(['volcanic tephra argon']);
      const hits = await index.search(query!, { orgId: 'o', limit: 3 });
      expect(hits[0]).toMatchObject({ sourceId: 'late' });
      expect(hits.map((h) => h.sourceId)).toEqual(
        (await index.searchExact(query!, { orgId: 'o', limit: 3 })).map((h) => h.sourceId),
      );
      expect(hits.map((h) => h.sourceId)).not.toContain('late-p');
      expect(await index.search(query!, { orgId: 'missing', limit: 3 })).toEqual([]);
    } finally {
      await index.close();
    }
  });

  it('is found again by a process opening the table later, and a table already big enough is indexed on open', async () => {
    const dir = scratch('ann-reopen');
    const identity = await embedder.identity();
    const first = await openLanceVectorIndex({ dir, embedder: identity, ...quiet, ann: { minRows: 0 } });
    await first.upsertMany(sources('o', 36), vectorsOf);
    await first.close();
    // minRows 0 = never: nothing was built; a process with a threshold of 30 builds it on open.
    expect(await indexOn(dir, 'chunks_vec', 'vector')).toBeUndefined();
    const second = await openLanceVectorIndex({ dir, embedder: identity, ...quiet, ann: { minRows: 30 } });
    await second.close();
    expect(await indexOn(dir, 'chunks_vec', 'vector')).toMatchObject({ type: 'IvfFlat', numIndexedRows: 36 });
    const third = await openLanceVectorIndex({ dir, embedder: identity, ...quiet, ann: { minRows: 30 } });
    try {
      expect(third.ann()).toEqual({ trainedRows: 36, partitions: 6, probes: 4 });
    } finally {
      await third.close();
    }
  });

  it('in a reader apart from the writer: never folds or trains, and learns of the index the writer built', async () => {
    const dir = scratch('ann-reader');
    const identity = await embedder.identity();
    const writer = await openLanceVectorIndex({ dir, embedder: identity, ...quiet, ann: { minRows: 20 } });
    const bm25 = await openLanceBm25Index({ dir, ...quiet });
    try {
      await writer.upsertMany(sources('o', 30), vectorsOf);
      await bm25.upsertMany(sources('o', 30));
      const reader = await openLanceVectorIndex({
        dir,
        embedder: identity,
        readConsistencyIntervalSeconds: 0,
        ann: { minRows: 20 },
      });
      const bm25Reader = await openLanceBm25Index({ dir, readConsistencyIntervalSeconds: 0 });
      try {
        await Promise.all([reader.idle(), bm25Reader.idle()]);
        expect(await indexOn(dir, 'chunks_vec', 'vector')).toBeUndefined();
        expect((await indexOn(dir, 'chunks_bm25', 'fts_text'))!.numUnindexedRows).toBe(30);
        const [query] = await embedder.embed(['fjord survey']);
        expect((await reader.search(query!, { orgId: 'o', limit: 3 })).length).toBe(3);
        expect(reader.ann()).toBeUndefined();

        await writer.optimize();
        await sleep(1_100);
        expect((await reader.search(query!, { orgId: 'o', limit: 3 })).length).toBe(3);
        expect(reader.ann()).toEqual(writer.ann());
      } finally {
        await reader.close();
        await bm25Reader.close();
      }
    } finally {
      await writer.close();
      await bm25.close();
    }
  });
});
