import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from '@jest/globals';
import { openLanceBm25Index, prepareSource, type IndexedSource } from '../src/index.js';

// Every LanceDB write is a new table version whose files stay on disk until a fold deletes the
// versions old enough that no reader can still use them. A bulk load must not leave them behind
// until some later write: they go shortly after it ends, or at once when nothing else reads.

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'quarry-search-versions-'));
  dirs.push(dir);
  return dir;
};
const sources = (n: number, from: number): IndexedSource[] =>
  Array.from({ length: n }, (_, k) =>
    prepareSource(
      { orgId: 'o', sourceTable: 't', sourceId: `s${from + k}`, title: `Survey ${from + k}` },
      `Survey number ${from + k} of the estuary.`,
    ),
  );
const versions = (dir: string) =>
  readdirSync(join(dir, 'chunks_bm25.lance', '_versions')).filter((f) => f.endsWith('.manifest')).length;

async function bulkLoad(dir: string, keepVersionsMs: number) {
  const bm25 = await openLanceBm25Index({
    dir,
    optimizeEvery: 0,
    optimizeEveryRows: 0,
    optimizeWithinMs: 0,
    keepVersionsMs,
  });
  for (let i = 0; i < 8; i++) await bm25.upsertMany(sources(5, i * 5));
  await bm25.optimize();
  return bm25;
}

describe('old table versions', () => {
  it('are kept while readers may use them, and deleted after the last fold without another write', async () => {
    const dir = scratch();
    const bm25 = await bulkLoad(dir, 500);
    try {
      const afterLoad = versions(dir);
      expect(afterLoad).toBeGreaterThan(8);
      await sleep(2_000); // the prune comes keepVersionsMs + 1 s after the last fold
      expect(versions(dir)).toBeLessThanOrEqual(2);
      expect(await bm25.search('estuary', { orgId: 'o', limit: 50 })).toHaveLength(40);
    } finally {
      await bm25.close();
    }
  });

  it('are all deleted by settle (a reindex that nothing else reads), searches unchanged', async () => {
    const dir = scratch();
    const bm25 = await bulkLoad(dir, 60_000);
    try {
      expect(versions(dir)).toBeGreaterThan(8);
      await bm25.settle();
      expect(versions(dir)).toBe(1);
      expect(await bm25.search('estuary', { orgId: 'o', limit: 50 })).toHaveLength(40);
    } finally {
      await bm25.close();
    }
  });
});
