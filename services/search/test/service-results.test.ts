import { describe, expect, it } from '@jest/globals';
import { artifactV1, searchV1 } from '@quarry/contracts';
import { status } from '@quarry/grpc';
import { prepareSource } from '@quarry/search-index';
import { as, client, docs, ids, orgA, orgBulk, request, searchAs, useSearchService } from './service-fixture.js';

// search_sources' answers: what it finds, its limit and the requests it refuses.

const { SourceTable, QueryType } = searchV1;

useSearchService();

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
      url: `quarry://artifacts/${docs.outbox.id}`,
      planId: docs.outbox.planId,
      tags: ['kafka', 'outbox'],
      createdAt: new Date(docs.outbox.createdAt),
      instructionFlags: [],
    });
    // The local embedder is lexical, so BM25's ranking comes first, whole, and the score is the
    // RRF of each result's final rank; vector-only items can only follow every keyword match.
    r.results.forEach((x, i) => {
      expect(x.id).toBe(x.sourceId);
      expect(x.inKeyword).toBe(x.keywordRank !== undefined);
      expect(x.inSemantic).toBe(x.semanticRank !== undefined);
      expect(x.rrfScore).toBeCloseTo(1 / (60 + i + 1), 12);
      if (x.inKeyword) expect(x.keywordRank).toBe(i + 1);
    });
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

describe('mode', () => {
  it('hybrid by default; keyword and semantic run one search only and say so', async () => {
    const hybrid = await searchAs(orgA, 'outbox relay');
    expect(hybrid.mode).toBe(searchV1.SearchMode.SEARCH_MODE_HYBRID);
    const keyword = await searchAs(orgA, 'outbox relay', { mode: searchV1.SearchMode.SEARCH_MODE_KEYWORD });
    expect(keyword).toMatchObject({ mode: searchV1.SearchMode.SEARCH_MODE_KEYWORD, semanticResults: 0 });
    expect(keyword.results.length).toBeGreaterThan(0);
    expect(keyword.results.every((x) => x.inKeyword && !x.inSemantic)).toBe(true);
    const semantic = await searchAs(orgA, 'kafak', { mode: searchV1.SearchMode.SEARCH_MODE_SEMANTIC });
    expect(semantic).toMatchObject({ mode: searchV1.SearchMode.SEARCH_MODE_SEMANTIC, keywordResults: 0 });
    expect(semantic.results.length).toBeGreaterThan(0);
    expect(semantic.results.every((x) => x.inSemantic && !x.inKeyword)).toBe(true);
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
    ['an unknown mode', request('outbox', { mode: 7 as searchV1.SearchMode })],
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
