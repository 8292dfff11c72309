import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import * as lancedb from '@lancedb/lancedb';
import { lanceSession } from '../src/adapters/lancedb.js';
import { createLocalEmbedder, openLanceBm25Index, openLanceVectorIndex, prepareSource } from '../src/index.js';

// Both embedded tables on one LanceDB session whose caches are capped: searches still answer,
// and what the caches hold stays under the cap where an uncapped session keeps more.

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const embedder = createLocalEmbedder();
const WORDS = ['basalt', 'cirrus', 'delta', 'estuary', 'fjord', 'geyser', 'harbour', 'isthmus', 'jungle', 'karst'];
const sources = Array.from({ length: 1_500 }, (_, i) =>
  prepareSource(
    { orgId: 'o', sourceTable: 't', sourceId: `s${i}`, title: `Survey ${i}` },
    `${WORDS[i % 10]} ${WORDS[Math.floor(i / 10) % 10]} survey number ${i} of the ${WORDS[(i * 7) % 10]} coast.`,
  ),
);

/** Load both tables (vectors behind an IVF index) on `session`, search them, and report what the caches hold. */
async function cachedAfterSearches(
  session: lancedb.Session,
): Promise<{ bytes: number; keyword: number; semantic: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'quarry-search-session-'));
  dirs.push(dir);
  const identity = await embedder.identity();
  const bm25 = await openLanceBm25Index({ dir, session });
  const vectors = await openLanceVectorIndex({ dir, embedder: identity, session, ann: { minRows: 1 } });
  try {
    await bm25.upsertMany(sources);
    await vectors.upsertMany(sources, (chunks) => embedder.embed(chunks.map((c) => c.text)));
    await bm25.optimize();
    await vectors.optimize();
    await Promise.all([bm25.idle(), vectors.idle()]);
    let keyword = 0;
    let semantic = 0;
    for (const word of WORDS) {
      keyword += (await bm25.search(word, { orgId: 'o', limit: 10 })).length;
      const [vector] = await embedder.embed([`${word} survey`]);
      semantic += (await vectors.search(vector!, { orgId: 'o', limit: 10 })).length;
    }
    return { bytes: Number(session.sizeBytes()), keyword, semantic };
  } finally {
    await bm25.close();
    await vectors.close();
  }
}

describe('LanceDB session caches', () => {
  it('stay within the cap shared by both tables, while every search still answers', async () => {
    const uncapped = await cachedAfterSearches(new lancedb.Session());
    const capped = await cachedAfterSearches(lanceSession({ indexCacheMb: 1, metadataCacheMb: 1 }));
    expect({ keyword: capped.keyword, semantic: capped.semantic }).toEqual({ keyword: 100, semantic: 100 });
    expect(capped.bytes).toBeLessThanOrEqual(2 * 2 ** 20);
    expect(uncapped.bytes).toBeGreaterThan(capped.bytes);
  });
});
