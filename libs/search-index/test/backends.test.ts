import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import {
  createLocalEmbedder,
  dropSearchIndexes,
  EmbedderMismatchError,
  embeddedSearchDir,
  LOCAL_EMBEDDER_VERSION,
  openSearchBackends,
  prepareSource,
  searchBackendsConfigSchema,
  type SearchBackends,
  type SearchBackendsConfig,
} from '../src/index.js';

// Which engines the environment selects, what the search service's configuration accepts, and
// how the embedded LanceDB indexes behave across reopening, reindexing and processes.

const ORG = 'org-a';
let dataDir: string;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'quarry-search-backends-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const backendsConfig = (env: Record<string, string> = {}): SearchBackendsConfig =>
  searchBackendsConfigSchema.parse({ QUARRY_DATA_DIR: dataDir, ...env });

async function store(
  backends: Pick<SearchBackends, 'bm25' | 'vectors' | 'embedder'>,
  sourceId: string,
  text: string,
): Promise<void> {
  const source = prepareSource({ orgId: ORG, sourceTable: 'research_artifact', sourceId, title: sourceId }, text);
  await backends.bm25.upsert(source);
  const v = await backends.embedder.embed(source.chunks.map((c) => c.text));
  await backends.vectors.upsert({ ...source, chunks: source.chunks.map((c, i) => ({ ...c, vector: v[i]! })) });
}

const found = async (backends: Pick<SearchBackends, 'bm25' | 'vectors' | 'embedder'>, query: string) => {
  const scope = { orgId: ORG, limit: 10 };
  const [vector] = await backends.embedder.embed([query]);
  return {
    keyword: (await backends.bm25.search(query, scope)).map((h) => h.sourceId),
    semantic: (await backends.vectors.search(vector!, scope)).map((h) => h.sourceId),
  };
};

describe('the shared backends configuration', () => {
  it('applies the same EMBEDDINGS_MODEL rule to the shared backends schema (indexer, reindex)', () => {
    const parsed = searchBackendsConfigSchema.safeParse({ EMBEDDINGS_URL: 'http://127.0.0.1:11434' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path.join('.'))).toEqual(['EMBEDDINGS_MODEL']);
    expect(
      searchBackendsConfigSchema.safeParse({
        EMBEDDINGS_URL: 'http://127.0.0.1:11434',
        EMBEDDINGS_MODEL: 'nomic-embed-text',
      }).success,
    ).toBe(true);
  });
});

describe('the embedded indexes cache caps', () => {
  it('are unset unless configured (then sized for the memory available), and refuse what is not a positive whole number', () => {
    const config = backendsConfig();
    expect([config.LANCEDB_INDEX_CACHE_MB, config.LANCEDB_METADATA_CACHE_MB]).toEqual([undefined, undefined]);
    expect(backendsConfig({ LANCEDB_INDEX_CACHE_MB: '2048' }).LANCEDB_INDEX_CACHE_MB).toBe(2048);
    for (const bad of ['0', '-1', 'lots', '1.5']) {
      const parsed = searchBackendsConfigSchema.safeParse({ QUARRY_DATA_DIR: dataDir, LANCEDB_METADATA_CACHE_MB: bad });
      expect(parsed.error?.issues.map((i) => i.path.join('.'))).toEqual(['LANCEDB_METADATA_CACHE_MB']);
    }
  });
});

describe('embedded defaults', () => {
  it('are LanceDB tables in <QUARRY_DATA_DIR>/search and the local lexical embedder', async () => {
    const config = backendsConfig();
    expect(embeddedSearchDir(config)).toBe(join(dataDir, 'search'));
    const backends = await openSearchBackends(config);
    try {
      expect(backends.describe).toEqual({ bm25: 'lancedb', vectors: 'lancedb', embedder: LOCAL_EMBEDDER_VERSION });
      expect(await backends.embedder.identity()).toEqual(await createLocalEmbedder().identity());
      expect(backends.embedder.lexical).toBe(true);
      expect(backends.embedder.similarityFloor).toBe(0.2);
      await store(backends, 'doc-1', 'The outbox relay publishes events.');
      expect(await found(backends, 'outbox relay')).toEqual({ keyword: ['doc-1'], semantic: ['doc-1'] });
    } finally {
      await backends.close();
    }
    expect((await readdir(join(dataDir, 'search'))).sort()).toEqual(['chunks_bm25.lance', 'chunks_vec.lance']);
  });

  it('keep their content across reopening', async () => {
    const first = await openSearchBackends(backendsConfig());
    await store(first, 'doc-1', 'Zeppelin hangars were enormous.');
    await first.close();
    const again = await openSearchBackends(backendsConfig());
    try {
      expect(await found(again, 'zeppelin')).toEqual({ keyword: ['doc-1'], semantic: ['doc-1'] });
    } finally {
      await again.close();
    }
  });
});

describe('an index built by one embedder', () => {
  let embeddings: Server;
  let embeddingsUrl: string;
  let requests = 0;

  beforeAll(async () => {
    // A local OpenAI-compatible /v1/embeddings endpoint answering 8-dimensional vectors.
    embeddings = createServer((req, res) => {
      let raw = '';
      req.on('data', (d: Buffer) => (raw += d.toString()));
      req.on('end', () => {
        if (req.url !== '/v1/embeddings' || req.method !== 'POST') return res.writeHead(404).end();
        requests++;
        const { input } = JSON.parse(raw) as { input: string[] };
        const data = input.map((text, index) => ({
          object: 'embedding',
          index,
          embedding: Array.from({ length: 8 }, (_, i) => (text.charCodeAt(i % text.length) % 7) + 1),
        }));
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ object: 'list', data, model: 'tiny' }));
      });
    });
    await new Promise<void>((r) => embeddings.listen(0, '127.0.0.1', r));
    embeddingsUrl = `http://127.0.0.1:${(embeddings.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((r) => embeddings.close(() => r())));

  const httpEnv = (): Record<string, string> => ({
    EMBEDDINGS_URL: embeddingsUrl,
    EMBEDDINGS_MODEL: 'tiny',
    EMBEDDINGS_DIMENSION: '8',
  });

  it('refuses to open with another embedder or dimension until it is dropped (quarry reindex)', async () => {
    const local = await openSearchBackends(backendsConfig());
    await store(local, 'doc-1', 'Built by the local embedder.');
    await local.close();

    const refused = openSearchBackends(backendsConfig(httpEnv()));
    await expect(refused).rejects.toThrow(EmbedderMismatchError);
    await expect(refused).rejects.toMatchObject({
      stored: { id: LOCAL_EMBEDDER_VERSION, dimension: 768 },
      requested: { id: 'http:tiny', dimension: 8 },
    });
    await expect(refused).rejects.toThrow('quarry reindex');

    await dropSearchIndexes(backendsConfig(httpEnv()));
    const rebuilt = await openSearchBackends(backendsConfig(httpEnv()));
    try {
      expect(rebuilt.describe).toEqual({ bm25: 'lancedb', vectors: 'lancedb', embedder: 'http:tiny' });
      expect(await found(rebuilt, 'local embedder')).toEqual({ keyword: [], semantic: [] });
      const before = requests;
      await store(rebuilt, 'doc-2', 'Embedded through the HTTP endpoint.');
      expect(requests).toBeGreaterThan(before);
      expect((await found(rebuilt, 'endpoint')).keyword).toEqual(['doc-2']);
    } finally {
      await rebuilt.close();
    }
    const floored = await openSearchBackends(backendsConfig({ ...httpEnv(), EMBEDDINGS_SIMILARITY_FLOOR: '0.35' }));
    try {
      expect(floored.embedder.similarityFloor).toBe(0.35);
      expect(rebuilt.embedder.similarityFloor).toBeUndefined();
    } finally {
      await floored.close();
    }
    expect(searchBackendsConfigSchema.safeParse({ EMBEDDINGS_SIMILARITY_FLOOR: '2' }).error?.issues[0]?.path).toEqual([
      'EMBEDDINGS_SIMILARITY_FLOOR',
    ]);
    // …and now the local embedder is the stranger.
    await expect(openSearchBackends(backendsConfig())).rejects.toThrow(EmbedderMismatchError);
  });

  it('dropping is idempotent and leaves an empty index that reopens', async () => {
    await dropSearchIndexes(backendsConfig());
    const first = await openSearchBackends(backendsConfig());
    await store(first, 'doc-1', 'Something to forget.');
    await first.close();
    await dropSearchIndexes(backendsConfig());
    await dropSearchIndexes(backendsConfig());
    const empty = await openSearchBackends(backendsConfig());
    try {
      expect(await found(empty, 'forget')).toEqual({ keyword: [], semantic: [] });
      expect(await empty.bm25.hashes({ orgId: ORG, sourceTable: 'research_artifact', sourceId: 'doc-1' })).toEqual(
        new Map(),
      );
    } finally {
      await empty.close();
    }
  });
});

describe('production engines by URL', () => {
  // One local HTTP server stands in for OpenSearch and Qdrant: it records what the adapters send
  // when they open (and drop) their index, and answers like the real engines (OpenSearch 2.x,
  // Qdrant 1.x) for a fresh cluster.
  let engines: Server;
  let url: string;
  let sent: string[] = [];
  let qdrantHasCollection = false;

  beforeAll(async () => {
    engines = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const line = `${req.method} ${req.url}`;
        sent.push(line);
        const json = (status: number, body: unknown) =>
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        const qdrant = (result: unknown) => json(200, { result, status: 'ok', time: 0.0001 });
        if (req.url!.startsWith('/collections/quarry_chunks/exists')) return qdrant({ exists: qdrantHasCollection });
        if (req.method === 'PUT' && req.url!.startsWith('/collections/quarry_chunks/index'))
          return qdrant({ operation_id: 1, status: 'completed' });
        if (req.url!.startsWith('/collections/quarry_chunks')) return qdrant(true);
        if (req.url!.startsWith('/_index_template/')) return json(200, { acknowledged: true });
        if (req.method === 'HEAD' && req.url === '/quarry-chunks') return res.writeHead(404).end();
        if (req.method === 'PUT' && req.url === '/quarry-chunks')
          return json(200, { acknowledged: true, shards_acknowledged: true, index: 'quarry-chunks' });
        if (req.method === 'DELETE' && req.url!.startsWith('/quarry-chunks')) return json(200, { acknowledged: true });
        return json(404, { error: `unexpected ${line}` });
      });
    });
    await new Promise<void>((r) => engines.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(engines.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((r) => engines.close(() => r())));
  beforeEach(() => {
    sent = [];
    qdrantHasCollection = false;
  });

  it('OPENSEARCH_URL selects OpenSearch for BM25, which creates its template and index', async () => {
    const backends = await openSearchBackends(backendsConfig({ OPENSEARCH_URL: url }));
    try {
      expect(backends.describe).toEqual({ bm25: 'opensearch', vectors: 'lancedb', embedder: LOCAL_EMBEDDER_VERSION });
      expect(sent).toEqual([
        'POST /_index_template/quarry-chunks-template',
        'HEAD /quarry-chunks',
        'PUT /quarry-chunks',
      ]);
    } finally {
      await backends.close();
    }
    expect(await readdir(join(dataDir, 'search'))).toEqual(['chunks_vec.lance']);
  });

  it('QDRANT_URL selects Qdrant for vectors, which creates its collection with the org tenant index', async () => {
    const backends = await openSearchBackends(backendsConfig({ QDRANT_URL: url, QDRANT_COLLECTION: 'quarry_chunks' }));
    try {
      expect(backends.describe).toEqual({ bm25: 'lancedb', vectors: 'qdrant', embedder: LOCAL_EMBEDDER_VERSION });
      expect(sent.slice(0, 3)).toEqual([
        'GET /collections/quarry_chunks/exists',
        'PUT /collections/quarry_chunks',
        'PUT /collections/quarry_chunks/index?wait=true',
      ]);
    } finally {
      await backends.close();
    }
    expect(await readdir(join(dataDir, 'search'))).toEqual(['chunks_bm25.lance']);
  });

  it('both URLs: no embedded index at all; dropping deletes the OpenSearch index and the Qdrant collection', async () => {
    const backends = await openSearchBackends(backendsConfig({ OPENSEARCH_URL: url, QDRANT_URL: url }));
    expect(backends.describe).toMatchObject({ bm25: 'opensearch', vectors: 'qdrant' });
    await backends.close();
    expect(existsSync(join(dataDir, 'search'))).toBe(false);

    sent = [];
    qdrantHasCollection = true;
    await dropSearchIndexes(backendsConfig({ OPENSEARCH_URL: url, QDRANT_URL: url }));
    expect(sent).toEqual([
      'DELETE /quarry-chunks?ignore_unavailable=true',
      'GET /collections/quarry_chunks/exists',
      'DELETE /collections/quarry_chunks',
    ]);
  });
});

describe('read consistency across processes (embedded LanceDB)', () => {
  it('a reader opened with readConsistencyIntervalSeconds sees what a separately opened writer upserts', async () => {
    const config = backendsConfig();
    const writer = await openSearchBackends(config);
    const reader = await openSearchBackends(config, { readConsistencyIntervalSeconds: 0.2 });
    const stale = await openSearchBackends(config); // no interval: never looks for other writers' versions
    try {
      expect(await found(reader, 'zebra')).toEqual({ keyword: [], semantic: [] });
      expect(await found(stale, 'zebra')).toEqual({ keyword: [], semantic: [] });
      await store(writer, 'doc-1', 'A zebra crossing the road.');

      const deadline = Date.now() + 5_000;
      let seen = await found(reader, 'zebra');
      while (seen.keyword.length === 0 || seen.semantic.length === 0) {
        if (Date.now() > deadline) throw new Error('the reader never saw the write');
        await new Promise((r) => setTimeout(r, 50));
        seen = await found(reader, 'zebra');
      }
      expect(seen).toEqual({ keyword: ['doc-1'], semantic: ['doc-1'] });
      expect(await found(stale, 'zebra')).toEqual({ keyword: [], semantic: [] });
    } finally {
      await Promise.all([writer.close(), reader.close(), stale.close()]);
    }
  });
});
