import { describe, expect, it } from '@jest/globals';
import type { ChunkHit } from '@quarry/search-index';
import { classifyQuery, fuse, FUSION_WEIGHTS, snippet } from '../src/index.js';

describe('classifyQuery', () => {
  it('uses word counts: 1–2 keyword, 3–5 balanced, 6+ semantic; quoted phrases are keyword', () => {
    expect(classifyQuery('kafka')).toBe('keyword');
    expect(classifyQuery('kafka outbox')).toBe('keyword');
    expect(classifyQuery('kafka outbox relay design')).toBe('balanced');
    expect(classifyQuery('how does the relay move outbox rows to kafka')).toBe('semantic');
    expect(classifyQuery('find "exactly once delivery" notes about the indexer')).toBe('keyword');
  });
});

const hit = (sourceId: string, chunkNo = 0, text = `text of ${sourceId}`): ChunkHit => ({
  sourceTable: 'research_artifact',
  sourceId,
  chunkNo,
  title: `title ${sourceId}`,
  text,
  start: 0,
  end: text.length,
  score: 1,
});

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
