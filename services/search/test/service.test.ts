import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1, searchV1 } from '@quarry/contracts';
import {
  buildServiceServer,
  createGrpcClient,
  createIdentitySigner,
  createRawClient,
  status,
  type GrpcServer,
  type Identity,
} from '@quarry/grpc';
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
import { createSearchService, startSearch, type SearchRuntime } from '../src/index.js';

// The SearchService over gRPC, as the gateway calls it: a real server on port 0, real LanceDB
// indexes in a temp directory, the local embedder, a real client signing the caller's identity.
// The indexes are filled directly (what the indexer does); the org only ever comes from the
// signed identity.

const { SourceTable, QueryType } = searchV1;
const { ArtifactType } = artifactV1;
const KEY = 's'.repeat(48);
const SERVICE = 'quarry.search.v1.SearchService';
const embedder = createLocalEmbedder({ dimension: 256 });
const silent = createLogger({ service: 'search-test', level: 'silent' });

let dir: string;
let bm25: Bm25Index;
let vectors: VectorIndex;
let search: SearchRuntime;
let client: ReturnType<typeof createGrpcClient<typeof searchV1.SearchServiceService>>;

const orgA = randomUUID();
const orgB = randomUUID();
const orgBulk = randomUUID();
const planOne: string = randomUUID();
const planTwo: string = randomUUID();
const as = (orgId: string): { identity: Identity } => ({
  identity: { kind: 'user', orgId, userId: randomUUID(), requestId: randomUUID() },
});

interface Doc extends Omit<SourceMeta, 'orgId' | 'sourceId'> {
  id: string;
  text: string;
}
const filler = (n: number): string =>
  Array.from({ length: n }, (_, i) => `Unrelated filler sentence ${i} about the weather in spring.`).join(' ');

/** Org A's stored items. */
const docs = {
  outbox: {
    id: randomUUID(),
    sourceTable: 'research_artifact',
    artifactType: 'finding',
    planId: planOne,
    tags: ['kafka', 'outbox'],
    title: 'Outbox relay design',
    text: 'The transactional outbox relay publishes content events to Kafka exactly once per change, in commit order.',
  },
  lag: {
    id: randomUUID(),
    sourceTable: 'research_artifact',
    artifactType: 'analysis',
    planId: planOne,
    tags: ['kafka'],
    title: 'Consumer lag',
    text: 'Kafka consumer group lag grows when offsets are committed before the index write finishes.',
  },
  latency: {
    id: randomUUID(),
    sourceTable: 'research_artifact',
    artifactType: 'analysis',
    planId: planTwo,
    tags: ['latency'],
    title: 'Search latency',
    text: 'Search latency at p95 stays under forty milliseconds for ten thousand chunks.',
  },
  report: {
    id: randomUUID(),
    sourceTable: 'research_output',
    planId: planOne,
    tags: [],
    title: 'Final report',
    text: 'The deliverable summarises the pipeline: storage, events, indexing and hybrid retrieval.',
  },
  extraction: {
    id: randomUUID(),
    sourceTable: 'extraction_result',
    planId: planTwo,
    tags: [],
    title: 'Vendor contract fields',
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
/** Org B writes about the very same things (and one word only it uses). */
const secret = {
  ...docs.outbox,
  id: randomUUID(),
  title: 'Outbox relay design (org B)',
  text: `${docs.outbox.text} The zanzibar canary lives here.`,
};

async function put(orgId: string, doc: Doc): Promise<void> {
  const { id, text, ...meta } = doc;
  const source = prepareSource({ ...meta, orgId, sourceId: id }, text);
  await bm25.upsert(source);
  const v = await embedder.embed(source.chunks.map((c) => c.text));
  await vectors.upsert({ ...source, chunks: source.chunks.map((c, i) => ({ ...c, vector: v[i]! })) });
}

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

const request = (query: string, extra: Partial<searchV1.SearchSourcesRequest> = {}): searchV1.SearchSourcesRequest => ({
  query,
  tags: [],
  ...extra,
});
const searchAs = (orgId: string, query: string, extra: Partial<searchV1.SearchSourcesRequest> = {}) =>
  client.call('searchSources', request(query, extra), as(orgId));
const ids = (r: searchV1.SearchSourcesResponse): string[] => r.results.map((x) => x.id);

describe('search_sources finds what an org stored', () => {
  it('finds an item by a keyword and by a longer question', async () => {
    expect(ids(await searchAs(orgA, 'outbox'))[0]).toBe(docs.outbox.id);
    expect(ids(await searchAs(orgA, 'latency'))[0]).toBe(docs.latency.id);
    expect(ids(await searchAs(orgA, 'which relay publishes the content events to kafka exactly once'))[0]).toBe(
      docs.outbox.id,
    );
    expect(ids(await searchAs(orgA, 'renewal date and price of the vendor contract'))[0]).toBe(docs.extraction.id);
  });

  it('answers in the search_sources shape: every field, RRF scores that match the ranks, best first', async () => {
    const r = await searchAs(orgA, 'outbox relay kafka');
    expect(r).toMatchObject({
      query: 'outbox relay kafka',
      queryType: QueryType.QUERY_TYPE_BALANCED,
      resultCount: r.results.length,
    });
    expect(r.keywordResults).toBe(r.results.filter((x) => x.inKeyword).length);
    expect(r.semanticResults).toBeGreaterThanOrEqual(r.results.filter((x) => x.inSemantic).length);
    expect(r.results[0]).toEqual({
      id: docs.outbox.id,
      sourceTable: SourceTable.SOURCE_TABLE_RESEARCH_ARTIFACT,
      sourceId: docs.outbox.id,
      title: 'Outbox relay design',
      rrfScore: expect.any(Number),
      inKeyword: true,
      inSemantic: true,
      keywordRank: 1,
      semanticRank: 1,
      textSnippet: expect.stringContaining('outbox relay publishes content events to Kafka'),
    });
    // The local embedder is lexical, so fusion weighs BM25 1.0 and vectors 0.25 (LEXICAL_FUSION_WEIGHTS).
    for (const x of r.results) {
      expect(x.id).toBe(x.sourceId);
      expect(x.inKeyword).toBe(x.keywordRank !== undefined);
      expect(x.inSemantic).toBe(x.semanticRank !== undefined);
      const expected =
        (x.keywordRank ? 1 / (60 + x.keywordRank) : 0) + (x.semanticRank ? 0.25 / (60 + x.semanticRank) : 0);
      expect(x.rrfScore).toBeCloseTo(expected, 12);
    }
    const scores = r.results.map((x) => x.rrfScore);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('leaves keywordRank out for items only the vector search found', async () => {
    const r = await searchAs(orgA, 'kafak'); // a typo: no keyword match, shared character n-grams
    expect(r.keywordResults).toBe(0);
    expect(r.results.length).toBeGreaterThan(0);
    for (const x of r.results)
      expect(x).toMatchObject({
        inKeyword: false,
        keywordRank: undefined,
        inSemantic: true,
        semanticRank: expect.any(Number),
      });
  });

  it('returns one result per item, with the snippet taken from its best passage', async () => {
    expect(
      prepareSource({ orgId: orgA, sourceTable: 'research_artifact', sourceId: 'x', title: 't' }, docs.zeppelin.text)
        .chunks.length,
    ).toBeGreaterThan(1);
    const r = await searchAs(orgA, 'zeppelin hangar');
    expect(ids(r).filter((id) => id === docs.zeppelin.id)).toHaveLength(1);
    expect(r.results[0]).toMatchObject({ id: docs.zeppelin.id, title: 'Airship history', keywordRank: 1 });
    expect(r.results[0]!.textSnippet.toLowerCase()).toContain('zeppelin hangar');
    expect(r.results[0]!.textSnippet.length).toBeLessThanOrEqual(240);
  });

  it('reads the query type from its length: 1–2 words or a quoted phrase keyword, 3–5 balanced, 6+ semantic', async () => {
    const typeOf = async (q: string) => (await searchAs(orgA, q)).queryType;
    expect(await typeOf('outbox')).toBe(QueryType.QUERY_TYPE_KEYWORD);
    expect(await typeOf('outbox relay')).toBe(QueryType.QUERY_TYPE_KEYWORD);
    expect(await typeOf('outbox relay kafka events')).toBe(QueryType.QUERY_TYPE_BALANCED);
    expect(await typeOf('how does the outbox relay publish events')).toBe(QueryType.QUERY_TYPE_SEMANTIC);
    expect(await typeOf('"outbox relay" design notes for kafka events')).toBe(QueryType.QUERY_TYPE_KEYWORD);
  });

  it('searches the query trimmed', async () => {
    const r = await searchAs(orgA, '  outbox \n');
    expect(r.query).toBe('outbox');
    expect(r.results[0]!.id).toBe(docs.outbox.id);
  });
});

describe('limit', () => {
  it('defaults to 10 and goes up to 50', async () => {
    const byDefault = await searchAs(orgBulk, 'quartz crystal');
    expect(byDefault.resultCount).toBe(10);
    expect(byDefault.results).toHaveLength(10);
    expect((await searchAs(orgBulk, 'quartz crystal', { limit: 3 })).results).toHaveLength(3);
    const most = await searchAs(orgBulk, 'quartz crystal', { limit: 50 });
    expect(most.results).toHaveLength(50);
    expect(new Set(ids(most)).size).toBe(50);
  });

  it.each([0, 51, 1000])('refuses %d with INVALID_ARGUMENT naming limit', async (limit) => {
    await expect(searchAs(orgBulk, 'quartz', { limit })).rejects.toMatchObject({
      status: status.INVALID_ARGUMENT,
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('`limit` must be between 1 and 50'),
    });
  });
});

describe('bad requests are refused with INVALID_ARGUMENT', () => {
  it.each([
    ['a blank query', request('  \t\n ')],
    ['an empty query', request('')],
    ['a query over 2000 characters', request('word '.repeat(401))],
    ['an unknown sourceTable', request('outbox', { sourceTable: 9 as searchV1.SourceTable })],
    ['an unknown artifactType', request('outbox', { artifactType: 42 as artifactV1.ArtifactType })],
    ['a planId that is not a UUID', request('outbox', { planId: 'plan-1' })],
    ['a blank tag', request('outbox', { tags: ['kafka', ' '] })],
    ['a repeated tag', request('outbox', { tags: ['kafka', 'kafka'] })],
    ['more than 20 tags', request('outbox', { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) })],
  ])('%s', async (_name, req) => {
    await expect(client.call('searchSources', req, as(orgA))).rejects.toMatchObject({
      status: status.INVALID_ARGUMENT,
      code: 'INVALID_ARGUMENT',
    });
  });

  it('says which field is wrong', async () => {
    await expect(searchAs(orgA, '   ')).rejects.toThrow(/`query`/);
    await expect(searchAs(orgA, 'x', { planId: 'nope' })).rejects.toThrow(/`planId` must be a plan ID/);
  });
});

describe('filters (applied inside both engines)', () => {
  const all: Doc[] = Object.values(docs);
  /** Every result satisfies the filter and every item that satisfies it and contains the words is found. */
  async function expectFiltered(
    query: string,
    filter: Partial<searchV1.SearchSourcesRequest>,
    mustFind: Doc[],
    allowed: (d: Doc) => boolean,
  ) {
    const r = await searchAs(orgA, query, { limit: 50, ...filter });
    const allowedIds = new Set(all.filter(allowed).map((d) => d.id));
    for (const id of ids(r)) expect(allowedIds.has(id)).toBe(true);
    for (const d of mustFind) expect(ids(r)).toContain(d.id);
    return r;
  }

  it('by sourceTable', async () => {
    const outputs = await expectFiltered(
      'kafka pipeline events',
      { sourceTable: SourceTable.SOURCE_TABLE_RESEARCH_OUTPUT },
      [docs.report],
      (d) => d.sourceTable === 'research_output',
    );
    expect(outputs.results.every((x) => x.sourceTable === SourceTable.SOURCE_TABLE_RESEARCH_OUTPUT)).toBe(true);
    const extractions = await expectFiltered(
      'contract',
      { sourceTable: SourceTable.SOURCE_TABLE_EXTRACTION_RESULT },
      [docs.extraction],
      (d) => d.sourceTable === 'extraction_result',
    );
    expect(extractions.results[0]!.sourceTable).toBe(SourceTable.SOURCE_TABLE_EXTRACTION_RESULT);
    await expectFiltered(
      'kafka',
      { sourceTable: SourceTable.SOURCE_TABLE_RESEARCH_ARTIFACT },
      [docs.outbox, docs.lag],
      (d) => d.sourceTable === 'research_artifact',
    );
  });

  it('by artifactType', async () => {
    await expectFiltered(
      'kafka latency',
      { artifactType: ArtifactType.ARTIFACT_TYPE_ANALYSIS },
      [docs.lag, docs.latency],
      (d) => d.artifactType === 'analysis',
    );
    const findings = await expectFiltered(
      'kafka',
      { artifactType: ArtifactType.ARTIFACT_TYPE_FINDING },
      [docs.outbox],
      (d) => d.artifactType === 'finding',
    );
    expect(ids(findings)).toEqual([docs.outbox.id]);
  });

  it('by planId', async () => {
    await expectFiltered(
      'kafka events deliverable',
      { planId: planOne },
      [docs.outbox, docs.lag, docs.report],
      (d) => d.planId === planOne,
    );
    await expectFiltered(
      'latency contract',
      { planId: planTwo.toUpperCase() },
      [docs.latency, docs.extraction],
      (d) => d.planId === planTwo,
    );
    expect((await searchAs(orgA, 'kafka', { planId: randomUUID() })).results).toEqual([]);
  });

  it('by tags: items carrying every listed tag', async () => {
    await expectFiltered(
      'kafka',
      { tags: ['kafka'] },
      [docs.outbox, docs.lag],
      (d) => d.tags?.includes('kafka') === true,
    );
    const both = await expectFiltered(
      'kafka',
      { tags: ['outbox', 'kafka'] },
      [docs.outbox],
      (d) => d.tags?.includes('kafka') === true && d.tags.includes('outbox'),
    );
    expect(ids(both)).toEqual([docs.outbox.id]);
    expect((await searchAs(orgA, 'kafka', { tags: ['kafka', 'latency'] })).results).toEqual([]);
  });

  it('combined: all conditions hold', async () => {
    const r = await expectFiltered(
      'kafka',
      {
        sourceTable: SourceTable.SOURCE_TABLE_RESEARCH_ARTIFACT,
        artifactType: ArtifactType.ARTIFACT_TYPE_ANALYSIS,
        planId: planOne,
        tags: ['kafka'],
      },
      [docs.lag],
      (d) => d === docs.lag,
    );
    expect(ids(r)).toEqual([docs.lag.id]);
    expect(
      (await searchAs(orgA, 'kafka', { artifactType: ArtifactType.ARTIFACT_TYPE_FINDING, planId: planTwo }))
        .resultCount,
    ).toBe(0);
  });

  it('treats UNSPECIFIED enums as no filter', async () => {
    const unfiltered = await searchAs(orgA, 'kafka', { limit: 50 });
    const unspecified = await searchAs(orgA, 'kafka', {
      limit: 50,
      sourceTable: SourceTable.SOURCE_TABLE_UNSPECIFIED,
      artifactType: ArtifactType.ARTIFACT_TYPE_UNSPECIFIED,
    });
    expect(unspecified).toEqual(unfiltered);
  });
});

describe('CANARY: an org sees only its own items', () => {
  it("never returns another org's items, even with the very same words", async () => {
    const a = await searchAs(orgA, docs.outbox.text, { limit: 50 });
    expect(ids(a)).toContain(docs.outbox.id);
    expect(ids(a)).not.toContain(secret.id);
    const b = await searchAs(orgB, docs.outbox.text, { limit: 50 });
    expect(ids(b)).toEqual([secret.id]);
  });

  it('a word only another org uses finds nothing, exactly like a word nobody uses', async () => {
    expect(ids(await searchAs(orgB, 'zanzibar'))).toEqual([secret.id]);
    for (const query of ['zanzibar', 'zanzibar canary']) {
      const r = await searchAs(orgA, query, { limit: 50 });
      expect(r.keywordResults).toBe((await searchAs(orgA, 'xylophone', { limit: 50 })).keywordResults);
      expect(r.keywordResults).toBe(0);
      expect(ids(r)).not.toContain(secret.id);
    }
  });

  it('an org with no data gets zero results, for any query and filter', async () => {
    const nobody = randomUUID();
    const cases: [string, Partial<searchV1.SearchSourcesRequest>][] = [
      ['outbox relay kafka', {}],
      ['zanzibar', {}],
      ['quartz', { limit: 50 }],
      ['kafka', { tags: ['kafka'], planId: planOne }],
    ];
    for (const [query, extra] of cases) {
      expect(await searchAs(nobody, query, extra)).toEqual({
        query,
        queryType: expect.any(Number),
        resultCount: 0,
        keywordResults: 0,
        semanticResults: 0,
        results: [],
      });
    }
  });
});

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
