import { describe, expect, it } from '@jest/globals';
import type { ChunkHit } from '@quarry/search-index';
import { classifyQuery, fuse, FUSION_WEIGHTS, keywordFirst, rankResults, snippet } from '../src/index.js';

describe('classifyQuery', () => {
  it('uses word counts: 1–2 keyword, 3–5 balanced, 6+ semantic; quoted phrases are keyword', () => {
    expect(classifyQuery('kafka')).toBe('keyword');
    expect(classifyQuery('kafka outbox')).toBe('keyword');
    expect(classifyQuery('kafka outbox relay design')).toBe('balanced');
    expect(classifyQuery('how does the relay move outbox rows to kafka')).toBe('semantic');
    expect(classifyQuery('find "exactly once delivery" notes about the indexer')).toBe('keyword');
  });
});

const hit = (sourceId: string, chunkNo = 0, text = `text of ${sourceId}`, score = 1): ChunkHit => ({
  sourceTable: 'research_artifact',
  sourceId,
  chunkNo,
  title: `title ${sourceId}`,
  text,
  start: 0,
  end: text.length,
  score,
});
const scored = (sourceId: string, score: number): ChunkHit => hit(sourceId, 0, `text of ${sourceId}`, score);
const ids = (results: readonly { sourceId: string }[]) => results.map((r) => r.sourceId);

describe('fuse (Reciprocal Rank Fusion, k = 60)', () => {
  it('scores Σ weight/(60 + rank) per source and ranks sources found by both legs first', () => {
    const out = fuse([hit('a'), hit('b'), hit('c')], [hit('c'), hit('d')], { queryType: 'balanced', limit: 10 });
    expect(out.map((r) => r.sourceId)).toEqual(['c', 'a', 'b', 'd']);
    const c = out[0]!;
    expect(c.rrfScore).toBeCloseTo(1 / 63 + 1 / 61, 12);
    expect(c).toMatchObject({ inKeyword: true, inSemantic: true, keywordRank: 3, semanticRank: 1 });
    expect(out[3]).toMatchObject({ inKeyword: false, keywordRank: null, semanticRank: 2 });
  });

  it('collapses chunks to sources; the best chunk (largest RRF term) gives the snippet', () => {
    const out = fuse([hit('a', 2), hit('a', 5), hit('b', 1)], [hit('b', 7), hit('a', 3)], {
      queryType: 'semantic',
      limit: 10,
    });
    const a = out.find((r) => r.sourceId === 'a')!;
    const b = out.find((r) => r.sourceId === 'b')!;
    expect(a.keywordRank).toBe(1);
    expect(a.semanticRank).toBe(2);
    expect(a.bestChunk.chunkNo).toBe(3); // semantic 1.0/62 > keyword 0.7/61
    expect(b.bestChunk.chunkNo).toBe(7);
    expect(b.rrfScore).toBeCloseTo(FUSION_WEIGHTS.semantic.keyword / 62 + FUSION_WEIGHTS.semantic.semantic / 61, 12);
  });

  it('weights the legs by query type and honours the limit', () => {
    const kw = fuse([hit('a')], [hit('b')], { queryType: 'keyword', limit: 10 });
    expect(kw.map((r) => r.sourceId)).toEqual(['a', 'b']);
    const sem = fuse([hit('a')], [hit('b')], { queryType: 'semantic', limit: 10 });
    expect(sem.map((r) => r.sourceId)).toEqual(['b', 'a']);
    const bal = fuse([hit('b')], [hit('a')], { queryType: 'balanced', limit: 1 });
    expect(bal.map((r) => r.sourceId)).toEqual(['a']); // tie broken by source key
  });
});

describe('keywordFirst (a lexical vector leg only adds what BM25 missed)', () => {
  it('keeps BM25’s ranking whole, then vector-only sources above the floor, in vector order', () => {
    const out = keywordFirst(
      [hit('a'), hit('b', 0), hit('b', 1), hit('c')],
      [scored('d', 0.5), scored('b', 0.9), scored('e', 0.1), scored('f', 0.3)],
      { limit: 10, floor: 0.2 },
    );
    expect(ids(out)).toEqual(['a', 'b', 'c', 'd', 'f']); // e is under the floor
    expect(out[1]).toMatchObject({ inKeyword: true, keywordRank: 2, inSemantic: true, semanticRank: 2 });
    expect(out[3]).toMatchObject({ inKeyword: false, keywordRank: null, inSemantic: true, semanticRank: 1 });
    expect(out.map((r) => r.rrfScore)).toEqual([1, 2, 3, 4, 5].map((rank) => 1 / (60 + rank)));
    expect(ids(keywordFirst([hit('a'), hit('b')], [scored('c', 1)], { limit: 1 }))).toEqual(['a']);
  });

  it('never ranks worse than BM25 alone: its first results are BM25’s, in BM25’s order', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 200; round++) {
      const pool = Array.from({ length: 30 }, (_, i) => `s${i}`);
      const draw = (n: number) => pool.filter(() => random() < n / pool.length);
      const keyword = draw(Math.floor(random() * 20)).map((id) => hit(id));
      const semantic = draw(Math.floor(random() * 20)).map((id) => scored(id, random()));
      const limit = 1 + Math.floor(random() * 15);
      const out = ids(keywordFirst(keyword, semantic, { limit, floor: random() }));
      const bm25 = ids(keyword).slice(0, limit);
      expect(out.slice(0, bm25.length)).toEqual(bm25);
      expect(new Set(out).size).toBe(out.length);
    }
  });
});

describe('rankResults (what search_sources ranks by)', () => {
  const keyword = [hit('a'), hit('b')];
  const semantic = [scored('b', 0.9), scored('c', 0.5), scored('d', 0.05)];
  it('hybrid with a lexical embedder: BM25 first, then vector-only hits above the floor', () => {
    const out = rankResults(keyword, semantic, {
      mode: 'hybrid',
      queryType: 'semantic',
      limit: 10,
      embedder: { lexical: true, similarityFloor: 0.2 },
    });
    expect(ids(out)).toEqual(['a', 'b', 'c']);
  });

  it('hybrid with a semantic embedder: weighted RRF, vector-only hits under the floor dropped', () => {
    const out = rankResults(keyword, semantic, {
      mode: 'hybrid',
      queryType: 'balanced',
      limit: 10,
      embedder: { similarityFloor: 0.2 },
    });
    expect(ids(out)).toEqual(['b', 'a', 'c']);
    expect(out[0]!.rrfScore).toBeCloseTo(1 / 62 + 1 / 61, 12);
    const unfloored = rankResults(keyword, semantic, {
      mode: 'hybrid',
      queryType: 'balanced',
      limit: 10,
      embedder: {},
    });
    expect(ids(unfloored)).toEqual(['b', 'a', 'c', 'd']);
  });

  it('keyword and semantic modes rank one leg only', () => {
    const opts = { queryType: 'balanced' as const, limit: 10, embedder: { lexical: true, similarityFloor: 0.2 } };
    expect(ids(rankResults(keyword, [], { ...opts, mode: 'keyword' }))).toEqual(['a', 'b']);
    const sem = rankResults([], semantic, { ...opts, mode: 'semantic' });
    expect(ids(sem)).toEqual(['b', 'c']);
    expect(sem[0]).toMatchObject({ inKeyword: false, inSemantic: true, semanticRank: 1 });
  });
});

describe('snippet', () => {
  const long = `${'Intro words that do not matter here. '.repeat(20)}The outbox relay publishes content events to Kafka without loss. ${'Closing filler sentence. '.repeat(20)}`;

  it('returns short text whole, with whitespace collapsed', () => {
    expect(snippet('  a\n\nb  c ', 'a')).toBe('a b c');
  });

  it('centres on the matched terms (stem-like prefix match), plain text with … at cuts', () => {
    const s = snippet(long, 'publishing outbox events', 120);
    expect(s).toContain('outbox relay publishes content events');
    expect(s.length).toBeLessThanOrEqual(122);
    expect(s.startsWith('…')).toBe(true);
    expect(s.endsWith('…')).toBe(true);
    expect(s).not.toMatch(/<|\*\*/);
  });

  it('falls back to the beginning when no term matches', () => {
    expect(snippet(long, 'zebra', 60).startsWith('Intro words')).toBe(true);
  });
});
