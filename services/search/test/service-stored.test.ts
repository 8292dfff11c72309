import { createServer } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { searchV1 } from '@quarry/contracts';
import { createGrpcClient, createIdentitySigner, status } from '@quarry/grpc';
import { startSearch } from '../src/index.js';
import { as, bm25, embedder, KEY, orgA, request, silent, useSearchService, vectors } from './service-fixture.js';

// The check of stored sources fails closed: a search whose hits cannot be checked against the
// artifact store (here: nothing listens at its address) is SEARCH_UNAVAILABLE naming it, never
// an answer that might list a deleted source. (That deleted sources are dropped, with the real
// artifact store and PostgreSQL: apps/system/test/deletion-in-search.test.ts.)

useSearchService();

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('with the artifact store unreachable', () => {
  it('answers SEARCH_UNAVAILABLE naming the artifact store, for search_sources and search', async () => {
    const service = await startSearch({
      backends: { bm25, vectors, embedder },
      identityKey: KEY,
      logger: silent,
      host: '127.0.0.1',
      port: 0,
      artifactStoreAddress: `127.0.0.1:${await closedPort()}`,
    });
    const client = createGrpcClient(searchV1.SearchServiceClient, service.address, {
      signer: createIdentitySigner({ key: KEY, issuer: 'gateway' }),
    });
    try {
      const refused = {
        status: status.UNAVAILABLE,
        code: 'SEARCH_UNAVAILABLE',
        message: 'Search is unavailable: the artifact store did not answer. Try again shortly.',
        details: { leg: 'artifact store' },
      };
      await expect(client.call('searchSources', request('outbox'), as(orgA))).rejects.toMatchObject(refused);
      await expect(client.call('search', { query: 'outbox' }, as(orgA))).rejects.toMatchObject(refused);
    } finally {
      client.close();
      await service.close(1000);
    }
  });
});
