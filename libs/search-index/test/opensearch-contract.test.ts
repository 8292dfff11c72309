import { describe, it } from '@jest/globals';
import { Client } from '@opensearch-project/opensearch';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLanceVectorIndex, openOpenSearchBm25Index } from '../src/index.js';
import { indexContract } from './contract.js';

const OPENSEARCH_URL = process.env.OPENSEARCH_URL;
if (OPENSEARCH_URL) {
  const name = `quarry-test-${process.pid}-${Date.now()}`;
  const dir = mkdtempSync(join(tmpdir(), 'quarry-search-os-'));
  // OpenSearch is the BM25 leg; the vector leg of the pair is the embedded one.
  indexContract(`OpenSearch at ${OPENSEARCH_URL} (+ LanceDB vectors)`, {
    bm25: () =>
      openOpenSearchBm25Index({
        client: new Client({ node: OPENSEARCH_URL }),
        index: name,
        refresh: true,
        replicas: 0,
      }),
    vectors: (embedder) => openLanceVectorIndex({ dir, embedder }),
    cleanup: async () => {
      rmSync(dir, { recursive: true, force: true });
      const c = new Client({ node: OPENSEARCH_URL });
      await c.indices.delete({ index: name });
      await c.indices.deleteIndexTemplate({ name: `${name}-template` });
      await c.close();
    },
  });
} else {
  describe.skip('index contract: OpenSearch — skipped because OPENSEARCH_URL is not set', () => {
    it('runs the shared contract against a real OpenSearch', () => {});
  });
}
