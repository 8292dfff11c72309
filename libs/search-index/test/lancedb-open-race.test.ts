import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { openLanceBm25Index, prepareSource } from '../src/index.js';

// The search service and the indexer open the embedded tables at once when a system starts on a
// new data directory (each its own process, as on Kubernetes or the README's separate-process
// block): both create the full-text index, LanceDB commits one, and the other must keep it.

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('two openers of a new directory', () => {
  it('both open, one full-text index is kept, and what one writes the other finds', async () => {
    for (let round = 0; round < 5; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'quarry-search-race-'));
      dirs.push(dir);
      const [writer, reader] = await Promise.all([
        openLanceBm25Index({ dir }),
        openLanceBm25Index({ dir, readConsistencyIntervalSeconds: 0 }),
      ]);
      try {
        await writer.upsertMany([
          prepareSource({ orgId: 'o', sourceTable: 't', sourceId: 's', title: 'Fjord' }, 'A survey of the fjord.'),
        ]);
        await writer.optimize();
        expect((await reader.search('fjord', { orgId: 'o', limit: 5 })).map((h) => h.sourceId)).toEqual(['s']);
      } finally {
        await Promise.all([writer.close(), reader.close()]);
      }
    }
  });
});
