import { describe, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildQdrantClient, openLanceBm25Index, openQdrantVectorIndex } from '../src/index.js';
import { indexContract } from './contract.js';

const QDRANT_URL = process.env.QDRANT_URL;
if (QDRANT_URL) {
  const collection = `quarry_test_${process.pid}_${Date.now()}`;
  const dir = mkdtempSync(join(tmpdir(), 'quarry-search-qd-'));
  // Qdrant is the vector leg; the BM25 leg of the pair is the embedded one.
  indexContract(`Qdrant at ${QDRANT_URL} (+ LanceDB BM25)`, {
    bm25: () => openLanceBm25Index({ dir }),
    vectors: (embedder) =>
      openQdrantVectorIndex({
        client: buildQdrantClient(QDRANT_URL, process.env.QDRANT_API_KEY),
        embedder,
        collection,
      }),
    cleanup: async () => {
      rmSync(dir, { recursive: true, force: true });
      await buildQdrantClient(QDRANT_URL, process.env.QDRANT_API_KEY).deleteCollection(collection);
    },
  });
} else {
  describe.skip('index contract: Qdrant — skipped because QDRANT_URL is not set', () => {
    it('runs the shared contract against a real Qdrant', () => {});
  });
}
