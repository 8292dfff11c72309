import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from '@jest/globals';
import { searchV1 } from '@quarry/contracts';
import { createGrpcClient, createIdentitySigner, type Identity } from '@quarry/grpc';
import { createLogger } from '@quarry/telemetry';
import {
  createLocalEmbedder,
  openLanceBm25Index,
  openLanceVectorIndex,
  prepareSource,
  type Bm25Index,
  type SourceMeta,
  type VectorIndex,
} from '@quarry/search-index';
import { startSearch, type SearchRuntime } from '../src/index.js';

// The SearchService over gRPC, as the gateway calls it, for the service-*.test.ts files: a real
// server on port 0, real LanceDB indexes in a temp directory, the local embedder, a real client
// signing the caller's identity. The indexes are filled directly (what the indexer does); the org
// only ever comes from the signed identity. Each test file calls useSearchService() and gets its
// own indexes and server; the `let` exports below are live bindings, set by its beforeAll.

export const KEY = 's'.repeat(48);
export const SERVICE = 'quarry.search.v1.SearchService';
export const embedder = createLocalEmbedder({ dimension: 256 });
export const silent = createLogger({ service: 'search-test', level: 'silent' });

export let dir: string;
export let bm25: Bm25Index;
export let vectors: VectorIndex;
export let search: SearchRuntime;
export let client: ReturnType<typeof createGrpcClient<typeof searchV1.SearchServiceService>>;

export const orgA = randomUUID();
export const orgB = randomUUID();
export const orgBulk = randomUUID();
export const planOne: string = randomUUID();
export const planTwo: string = randomUUID();
export const as = (orgId: string): { identity: Identity } => ({
  identity: { kind: 'user', orgId, userId: randomUUID(), requestId: randomUUID() },
});

export interface Doc extends Omit<SourceMeta, 'orgId' | 'sourceId'> {
  id: string;
  text: string;
}
const filler = (n: number): string =>
  Array.from({ length: n }, (_, i) => `Unrelated filler sentence ${i} about the weather in spring.`).join(' ');

/** Org A's stored items (one dated with an offset; the zeppelin notes predate createdAt being recorded). */
export const docs = {
  outbox: {
    id: randomUUID(),
    sourceTable: 'research_artifact',
    artifactType: 'finding',
    planId: planOne,
    tags: ['kafka', 'outbox'],
    title: 'Outbox relay design',
    createdAt: '2026-01-10T09:00:00.000Z',
    text: 'The transactional outbox relay publishes content events to Kafka exactly once per change, in commit order.',
  },
  lag: {
    id: randomUUID(),
    sourceTable: 'research_artifact',
    artifactType: 'analysis',
    planId: planOne,
    tags: ['kafka'],
    title: 'Consumer lag',
    createdAt: '2026-02-15T12:00:00+02:00',
    text: 'Kafka consumer group lag grows when offsets are committed before the index write finishes.',
  },
  latency: {
    id: randomUUID(),
    sourceTable: 'research_artifact',
    artifactType: 'analysis',
    planId: planTwo,
    tags: ['latency'],
    title: 'Search latency',
    createdAt: '2026-03-20T00:00:00.000Z',
    text: 'Search latency at p95 stays under forty milliseconds for ten thousand chunks.',
  },
  report: {
    id: randomUUID(),
    sourceTable: 'research_output',
    planId: planOne,
    tags: [],
    title: 'Final report',
    createdAt: '2026-04-25T18:30:00.000Z',
    text: 'The deliverable summarises the pipeline: storage, events, indexing and hybrid retrieval.',
  },
  extraction: {
    id: randomUUID(),
    sourceTable: 'extraction_result',
    planId: planTwo,
    tags: [],
    title: 'Vendor contract fields',
    createdAt: '2026-05-01T08:00:00.000Z',
    text: 'Renewal date, price per seat and the termination clause extracted from the vendor contract.',
  },
  // Long enough for several chunks; the rare words sit in two of them.
  zeppelin: {
    id: randomUUID(),
    sourceTable: 'research_artifact',
    artifactType: 'summary',
    tags: [],
    title: 'Airship history',
    text: `${filler(50)} The zeppelin hangar at Friedrichshafen was enormous. ${filler(50)} A second zeppelin hangar stood nearby. ${filler(50)}`,
  },
} satisfies Record<string, Doc>;
/** Org B writes about the very same things (and one word only it uses), later than any of org A's items. */
export const secret = {
  ...docs.outbox,
  id: randomUUID(),
  title: 'Outbox relay design (org B)',
  createdAt: '2026-06-01T00:00:00.000Z',
  text: `${docs.outbox.text} The zanzibar canary lives here.`,
};

async function put(orgId: string, doc: Doc): Promise<void> {
  const { id, text, ...meta } = doc;
  const source = prepareSource({ ...meta, orgId, sourceId: id }, text);
  await bm25.upsert(source);
  const v = await embedder.embed(source.chunks.map((c) => c.text));
  await vectors.upsert({ ...source, chunks: source.chunks.map((c, i) => ({ ...c, vector: v[i]! })) });
}

/** Registers the hooks that fill fresh indexes, start the service and close it all after the file. */
export function useSearchService(): void {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'quarry-search-service-'));
    bm25 = await openLanceBm25Index({ dir });
    vectors = await openLanceVectorIndex({ dir, embedder: await embedder.identity() });
    for (const doc of Object.values(docs)) await put(orgA, doc);
    await put(orgB, secret);
    for (let i = 0; i < 55; i++) {
      await put(orgBulk, {
        id: `bulk-${String(i).padStart(2, '0')}`,
        sourceTable: 'research_artifact',
        title: `Quartz note ${i}`,
        text: `Quartz crystal observation number ${i}.`,
      });
    }
    search = await startSearch({
      backends: { bm25, vectors, embedder },
      identityKey: KEY,
      logger: silent,
      host: '127.0.0.1',
      port: 0,
    });
    client = createGrpcClient(searchV1.SearchServiceClient, search.address, {
      signer: createIdentitySigner({ key: KEY, issuer: 'gateway' }),
    });
  }, 60_000);
  afterAll(async () => {
    client?.close();
    await search?.close(1000);
    await bm25?.close();
    await vectors?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
}

export const request = (
  query: string,
  extra: Partial<searchV1.SearchSourcesRequest> = {},
): searchV1.SearchSourcesRequest => ({
  query,
  tags: [],
  ...extra,
});
export const searchAs = (orgId: string, query: string, extra: Partial<searchV1.SearchSourcesRequest> = {}) =>
  client.call('searchSources', request(query, extra), as(orgId));
export const ids = (r: searchV1.SearchSourcesResponse): string[] => r.results.map((x) => x.id);
