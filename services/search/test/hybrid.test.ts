import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createLocalEmbedder,
  EmbedderMismatchError,
  openLanceBm25Index,
  openLanceVectorIndex,
  prepareSource,
  type Bm25Index,
  type VectorIndex,
} from '@quarry/search-index';
import { buildHybridSearch, type HybridSearchRequest, type HybridSearchResponse } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'quarry-search-hybrid-'));
const embedder = createLocalEmbedder({ dimension: 256 });
let bm25: Bm25Index;
let vectors: VectorIndex;
let search: (r: HybridSearchRequest) => Promise<HybridSearchResponse>;

const filler = (n: number): string =>
  Array.from({ length: n }, (_, i) => `Unrelated filler sentence ${i} about the weather.`).join(' ');

beforeAll(async () => {
  bm25 = await openLanceBm25Index({ dir });
  vectors = await openLanceVectorIndex({ dir, embedder: await embedder.identity() });
  const put = async (orgId: string, sourceId: string, title: string, text: string, extra = {}): Promise<void> => {
    const s = prepareSource({ orgId, sourceTable: 'research_artifact', sourceId, title, ...extra }, text);
    await bm25.upsert(s);
    const v = await embedder.embed(s.chunks.map((c) => c.text));
    await vectors.upsert({ ...s, chunks: s.chunks.map((c, i) => ({ ...c, vector: v[i]! })) });
  };
  await put(
    'org-a',
    'outbox',
    'Outbox design',
    `${filler(60)} The transactional outbox relay publishes content events to Kafka exactly once per change. ${filler(60)}`,
    { planId: 'p1' },
  );
  await put('org-a', 'latency', 'Latency notes', 'Search latency was measured at p95 for ten thousand chunks.');
  await put(
    'org-b',
    'secret',
    'Outbox secrets',
    'Org B also writes about the outbox relay and Kafka events, many many times: outbox outbox outbox.',
  );
  search = buildHybridSearch({ bm25, vectors, embedder });
});
afterAll(async () => {
  await bm25.close();
  await vectors.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('hybrid search (RRF over both legs)', () => {
  it('returns per-source results in the search_sources shape with a snippet from the best chunk', async () => {
    const r = await search({ orgId: 'org-a', query: 'outbox relay kafka' });
    expect(r).toMatchObject({ query: 'outbox relay kafka', queryType: 'balanced' });
    expect(r.results[0]).toMatchObject({
      id: 'outbox',
      sourceId: 'outbox',
      sourceTable: 'research_artifact',
      title: 'Outbox design',
      inKeyword: true,
      inSemantic: true,
      keywordRank: 1,
      semanticRank: 1,
    });
    expect(r.results[0]!.rrfScore).toBeCloseTo(1 / 61, 12); // lexical embedder: BM25 first, the RRF of the final rank
    expect(r.results[0]!.textSnippet).toContain('outbox relay publishes content events to Kafka');
    expect(r.results.filter((x) => x.sourceId === 'outbox')).toHaveLength(1);
    expect(r.resultCount).toBe(r.results.length);
  });

  it('never shows another org’s content', async () => {
    const r = await search({ orgId: 'org-a', query: 'outbox', limit: 50 });
    expect(r.results.map((x) => x.sourceId)).not.toContain('secret');
    const none = await search({ orgId: 'org-c', query: 'outbox relay kafka events' });
    expect(none).toMatchObject({ resultCount: 0, keywordResults: 0, semanticResults: 0, results: [] });
  });

  it('passes filters to both legs and validates the limit', async () => {
    const r = await search({ orgId: 'org-a', query: 'latency outbox', filters: { planId: 'p1' } });
    expect(r.results.map((x) => x.sourceId)).toEqual(['outbox']);
    await expect(search({ orgId: 'org-a', query: 'x', limit: 51 })).rejects.toThrow(RangeError);
    await expect(search({ orgId: 'org-a', query: 'x', limit: 0 })).rejects.toThrow(RangeError);
  });

  it('uses the query-type weights (FUSION_WEIGHTS) when the embedder is semantic', async () => {
    const local = createLocalEmbedder({ dimension: 256 });
    const semantic = { identity: local.identity, embed: local.embed }; // same vectors, not flagged lexical
    const r = await buildHybridSearch({ bm25, vectors, embedder: semantic })({
      orgId: 'org-a',
      query: 'outbox relay kafka',
    });
    expect(r.queryType).toBe('balanced');
    expect(r.results[0]!.rrfScore).toBeCloseTo(1 / 61 + 1 / 61, 12);
  });

  it('runs only the leg the mode asks for', async () => {
    const keyword = await search({ orgId: 'org-a', query: 'outbox relay', mode: 'keyword' });
    expect(keyword).toMatchObject({ mode: 'keyword', semanticResults: 0 });
    expect(keyword.results.map((x) => x.sourceId)).toEqual(['outbox']);
    expect(keyword.results.every((x) => x.inKeyword && !x.inSemantic)).toBe(true);
    const semantic = await search({ orgId: 'org-a', query: 'search latency', mode: 'semantic' });
    expect(semantic).toMatchObject({ mode: 'semantic', keywordResults: 0 });
    expect(semantic.results[0]).toMatchObject({ sourceId: 'latency', inKeyword: false, inSemantic: true });
    // A keyword search asks no embedder: it works even while the embedder is down.
    const down = { ...embedder, embed: () => Promise.reject(new Error('embedder down')) };
    const noEmbedder = buildHybridSearch({ bm25, vectors, embedder: down });
    await expect(noEmbedder({ orgId: 'org-a', query: 'outbox', mode: 'keyword' })).resolves.toMatchObject({
      resultCount: 1,
    });
    await expect(noEmbedder({ orgId: 'org-a', query: 'outbox' })).rejects.toThrow('embedder down');
  });

  it('drops vector-only hits under the embedder’s similarity floor', async () => {
    const query = 'weather forecast'; // shares words with the filler sentences only
    const loose = await buildHybridSearch({ bm25, vectors, embedder: { ...embedder, similarityFloor: -1 } })({
      orgId: 'org-a',
      query,
      mode: 'semantic',
    });
    const strict = await buildHybridSearch({ bm25, vectors, embedder: { ...embedder, similarityFloor: 0.99 } })({
      orgId: 'org-a',
      query,
      mode: 'semantic',
    });
    expect(loose.resultCount).toBeGreaterThan(0);
    expect(strict.resultCount).toBe(0);
  });

  it('refuses an embedder other than the one that built the vector index', async () => {
    const other = buildHybridSearch({ bm25, vectors, embedder: createLocalEmbedder({ dimension: 128 }) });
    await expect(other({ orgId: 'org-a', query: 'outbox' })).rejects.toThrow(EmbedderMismatchError);
  });
});
