import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { searchV1 } from '@quarry/contracts';
import {
  buildServiceServer,
  createGrpcClient,
  createIdentitySigner,
  createRawClient,
  status,
  type GrpcServer,
} from '@quarry/grpc';
import { createLogger } from '@quarry/telemetry';
import { createLocalEmbedder, openLanceVectorIndex, type Bm25Index, type VectorIndex } from '@quarry/search-index';
import { createSearchService } from '../src/index.js';
import {
  as,
  bm25,
  dir,
  docs,
  embedder,
  ids,
  KEY,
  orgA,
  request,
  search,
  SERVICE,
  silent,
  useSearchService,
  vectors,
} from './service-fixture.js';

// How the service fails (another embedder's index, an engine down, a forged identity) and how it
// reports itself on the gRPC health service.

useSearchService();

describe('failures', () => {
  it('refuses to compare vectors of another embedder: FAILED_PRECONDITION INDEX_EMBEDDER_MISMATCH', async () => {
    const other = createLocalEmbedder({ dimension: 128 });
    const server = buildServiceServer({
      definition: searchV1.SearchServiceService,
      implementation: createSearchService({ backends: { bm25, vectors, embedder: other }, logger: silent }),
      identityKey: KEY,
      logger: silent,
    });
    const c = createGrpcClient(searchV1.SearchServiceClient, `127.0.0.1:${await server.listen('127.0.0.1', 0)}`, {
      signer: createIdentitySigner({ key: KEY, issuer: 'gateway' }),
    });
    try {
      const attempt = c.call('searchSources', request('outbox'), as(orgA));
      await expect(attempt).rejects.toMatchObject({
        status: status.FAILED_PRECONDITION,
        code: 'INDEX_EMBEDDER_MISMATCH',
      });
      const { id } = await embedder.identity();
      await expect(attempt).rejects.toThrow(`built by embedder ${id} (dimension 256)`);
      await expect(attempt).rejects.toThrow(`configured with ${(await other.identity()).id} (dimension 128)`);
      await expect(attempt).rejects.toThrow('Run `quarry reindex`');
    } finally {
      c.close();
      await server.shutdown(1000);
    }
  });

  describe('an engine that fails', () => {
    let server: GrpcServer;
    let c: ReturnType<typeof createGrpcClient<typeof searchV1.SearchServiceService>>;
    let failKeyword = false;
    const logLines: string[] = [];
    let brokenVectors: VectorIndex;

    beforeAll(async () => {
      // The keyword engine fails while `failKeyword` is set (a connection error whose text carries a credentialed URL).
      const flakyBm25: Bm25Index = {
        ...bm25,
        search: (q, scope) =>
          failKeyword
            ? Promise.reject(new Error('connect ECONNREFUSED http://admin:hunter2@opensearch.internal:9200'))
            : bm25.search(q, scope),
      };
      const logger = createLogger({
        service: 'search-test',
        level: 'error',
        destination: { write: (line: string) => void logLines.push(line) },
      });
      server = buildServiceServer({
        definition: searchV1.SearchServiceService,
        implementation: createSearchService({ backends: { bm25: flakyBm25, vectors, embedder }, logger }),
        identityKey: KEY,
        logger,
      });
      c = createGrpcClient(searchV1.SearchServiceClient, `127.0.0.1:${await server.listen('127.0.0.1', 0)}`, {
        signer: createIdentitySigner({ key: KEY, issuer: 'gateway' }),
      });
      // A really broken vector engine: its LanceDB table is closed.
      brokenVectors = await openLanceVectorIndex({ dir, embedder: await embedder.identity() });
      await brokenVectors.close();
    });
    afterAll(async () => {
      c?.close();
      await server?.shutdown(1000);
    });

    it('answers UNAVAILABLE SEARCH_UNAVAILABLE naming the leg, leaks nothing, logs the cause, and keeps serving', async () => {
      failKeyword = true;
      const attempt = c.call('searchSources', request('outbox'), as(orgA));
      await expect(attempt).rejects.toMatchObject({
        status: status.UNAVAILABLE,
        code: 'SEARCH_UNAVAILABLE',
        details: { leg: 'keyword index' },
      });
      const message = await attempt.catch((e: Error) => e.message);
      expect(message).toBe('Search is unavailable: the keyword index did not answer. Try again shortly.');
      expect(
        logLines.some(
          (l) =>
            l.includes('search engine failed') && l.includes('"leg":"keyword index"') && l.includes('ECONNREFUSED'),
        ),
      ).toBe(true);

      failKeyword = false;
      expect(ids(await c.call('searchSources', request('outbox'), as(orgA)))[0]).toBe(docs.outbox.id);
    });

    it('names the vector index when that engine fails', async () => {
      const server2 = buildServiceServer({
        definition: searchV1.SearchServiceService,
        implementation: createSearchService({ backends: { bm25, vectors: brokenVectors, embedder }, logger: silent }),
        identityKey: KEY,
        logger: silent,
      });
      const c2 = createGrpcClient(searchV1.SearchServiceClient, `127.0.0.1:${await server2.listen('127.0.0.1', 0)}`, {
        signer: createIdentitySigner({ key: KEY, issuer: 'gateway' }),
      });
      try {
        await expect(c2.call('searchSources', request('outbox'), as(orgA))).rejects.toMatchObject({
          status: status.UNAVAILABLE,
          code: 'SEARCH_UNAVAILABLE',
          details: { leg: 'vector index' },
        });
        await expect(c2.call('searchSources', request('outbox'), as(orgA))).rejects.toMatchObject({
          code: 'SEARCH_UNAVAILABLE',
        });
      } finally {
        c2.close();
        await server2.shutdown(1000);
      }
    });
  });

  it('refuses a caller without a valid signed identity', async () => {
    const forged = createGrpcClient(searchV1.SearchServiceClient, search.address, {
      signer: createIdentitySigner({ key: 'f'.repeat(48), issuer: 'gateway' }),
    });
    try {
      await expect(forged.call('searchSources', request('outbox'), as(orgA))).rejects.toMatchObject({
        status: status.UNAUTHENTICATED,
      });
    } finally {
      forged.close();
    }
  });
});

describe('the server', () => {
  it('serves SearchService and reports it SERVING on the gRPC health service', async () => {
    expect(search.serviceNames).toEqual([SERVICE]);
    const raw = createRawClient(search.address, { signer: createIdentitySigner({ key: KEY, issuer: 'probe' }) });
    try {
      // grpc.health.v1.HealthCheckRequest { service = 1 } → HealthCheckResponse { status = 1 (SERVING) }
      const name = Buffer.from(SERVICE);
      const reply = await raw.unary(
        '/grpc.health.v1.Health/Check',
        Buffer.concat([Buffer.from([0x0a, name.length]), name]),
        as(orgA),
      );
      expect([...reply]).toEqual([0x08, 0x01]);
    } finally {
      raw.close();
    }
  });
});
