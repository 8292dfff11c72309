import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { lanceWhere, openLanceBm25Index, openLanceVectorIndex } from '../src/index.js';
import { indexContract } from './contract.js';

const dir = mkdtempSync(join(tmpdir(), 'quarry-search-lance-'));

indexContract('embedded LanceDB (always runs)', {
  // optimizeEvery: 3 exercises compaction and version cleanup in the middle of the contract.
  bm25: () => openLanceBm25Index({ dir, optimizeEvery: 3 }),
  vectors: (embedder) => openLanceVectorIndex({ dir, embedder, optimizeEvery: 3 }),
  cleanup: async () => rmSync(dir, { recursive: true, force: true }),
});

describe('LanceDB where clause', () => {
  it('puts the org first, quotes every value and ANDs the filters', () => {
    expect(lanceWhere("o'1", { sourceTable: 't', artifactType: 'finding', planId: 'p', tags: ["a'b", 'c'] })).toBe(
      "org_id = 'o''1' AND source_table = 't' AND artifact_type = 'finding' AND plan_id = 'p' AND array_has_all(tags, ['a''b', 'c'])",
    );
    expect(lanceWhere('o', { tags: [] })).toBe("org_id = 'o'");
  });
});
