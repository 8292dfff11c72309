import { describe, expect, it } from '@jest/globals';
import {
  createLocalEmbedder,
  embedLexical,
  planUpsert,
  planUpsertMany,
  prepareSource,
  sourceKeyString,
} from '../src/index.js';

const meta = { orgId: 'org-a', sourceTable: 'research_artifact', sourceId: 's1', title: 'T', tags: ['b', 'a', 'b'] };

describe('prepareSource / planUpsert', () => {
  it('hashes chunks with their metadata and normalises tags', () => {
    const a = prepareSource(meta, 'Some text about lakes.');
    expect(a.tags).toEqual(['a', 'b']);
    expect(a.chunks).toHaveLength(1);
    expect(prepareSource(meta, 'Some text about lakes.')).toEqual(a);
    expect(prepareSource({ ...meta, tags: ['a', 'b'] }, 'Some text about lakes.').chunks[0]!.contentHash).toBe(
      a.chunks[0]!.contentHash,
    );
    expect(prepareSource({ ...meta, title: 'U' }, 'Some text about lakes.').chunks[0]!.contentHash).not.toBe(
      a.chunks[0]!.contentHash,
    );
    expect(prepareSource({ ...meta, planId: 'p' }, 'Some text about lakes.').chunks[0]!.contentHash).not.toBe(
      a.chunks[0]!.contentHash,
    );
  });

  it('cuts a source document page by page: no chunk spans two pages, each names its page', () => {
    const pages = ['First page words. '.repeat(30).trim(), 'Second page words. '.repeat(30).trim()];
    const text = pages.join('\n\n');
    const units = [
      { number: 1, start: 0, end: pages[0]!.length },
      { number: 2, start: pages[0]!.length + 2, end: text.length },
    ];
    const source = prepareSource(meta, text, { minWords: 20, maxWords: 40, overlapWords: 5 }, units);
    expect(source.chunks.map((c) => c.chunkNo)).toEqual(source.chunks.map((_, i) => i));
    for (const chunk of source.chunks) {
      const unit = units.find((u) => u.number === chunk.unit)!;
      expect(chunk.start).toBeGreaterThanOrEqual(unit.start);
      expect(chunk.end).toBeLessThanOrEqual(unit.end);
      expect(chunk.text).toBe(text.slice(chunk.start, chunk.end));
    }
    expect(new Set(source.chunks.map((c) => c.unit))).toEqual(new Set([1, 2]));
    // Without units nothing changes: the same chunks and hashes as before pages existed.
    const plain = prepareSource(meta, text, { minWords: 20, maxWords: 40, overlapWords: 5 });
    expect(plain.chunks.every((c) => c.unit === undefined)).toBe(true);
    expect(prepareSource(meta, text, { minWords: 20, maxWords: 40, overlapWords: 5 }, [])).toEqual(plain);
  });

  it('writes only new or changed chunks and removes chunks the source lost', () => {
    const chunks = [
      { chunkNo: 0, text: 'a', start: 0, end: 1, contentHash: 'h0' },
      { chunkNo: 1, text: 'b', start: 2, end: 3, contentHash: 'h1-new' },
      { chunkNo: 2, text: 'c', start: 4, end: 5, contentHash: 'h2' },
    ];
    const stored = new Map([
      [0, 'h0'],
      [1, 'h1'],
      [3, 'h3'],
      [4, 'h4'],
    ]);
    const plan = planUpsert(stored, chunks);
    expect(plan.write.map((c) => c.chunkNo)).toEqual([1, 2]);
    expect(plan.remove).toEqual([3, 4]);
    expect(plan.report).toEqual({ inserted: 1, updated: 1, deleted: 2, unchanged: 1 });
    expect(planUpsert(new Map(chunks.map((c) => [c.chunkNo, c.contentHash])), chunks).report).toEqual({
      inserted: 0,
      updated: 0,
      deleted: 0,
      unchanged: 3,
    });
  });

  it('plans many sources against one hash read: writes with their source, removals per source, one report each', () => {
    const a = prepareSource({ orgId: 'o1', sourceTable: 't', sourceId: 's', title: 'A' }, 'Alpha text.');
    const b = prepareSource({ orgId: 'o2', sourceTable: 't', sourceId: 's', title: 'B' }, 'Beta text.'); // same id, other org
    // Only a (org o1) has chunks stored; b has the same table and id in org o2: nothing of a's is b's.
    const stored = new Map([
      [
        sourceKeyString(a),
        new Map([
          [0, a.chunks[0]!.contentHash],
          [1, 'gone'],
          [2, 'gone'],
        ]),
      ],
    ]);
    const plan = planUpsertMany(stored, [a, b]);
    expect(plan.writes).toEqual([{ source: b, chunk: b.chunks[0] }]);
    expect(plan.writes[0]!.chunk).toBe(b.chunks[0]); // the source's own object
    expect(plan.removes).toEqual([{ source: a, chunkNos: [1, 2] }]);
    expect(plan.reports).toEqual([
      { inserted: 0, updated: 0, deleted: 2, unchanged: 1 },
      { inserted: 1, updated: 0, deleted: 0, unchanged: 0 },
    ]);
    expect(() => planUpsertMany(stored, [a, b, { ...a, title: 'again' }])).toThrow(
      `upsertMany: source ${sourceKeyString(a)} is given more than once`,
    );
  });

  it('keys sources unambiguously, whatever their ids contain', () => {
    expect(sourceKeyString({ orgId: 'o', sourceTable: 't', sourceId: 'a/b' })).not.toBe(
      sourceKeyString({ orgId: 'o', sourceTable: 't/a', sourceId: 'b' }),
    );
    expect(sourceKeyString({ orgId: 'o', sourceTable: 't', sourceId: 's' })).toBe('["o","t","s"]');
  });
});

describe('local embedder (lexical, deterministic)', () => {
  const dot = (a: number[], b: number[]): number => a.reduce((s, x, i) => s + x * b[i]!, 0);

  it('has a fixed identity and dimension and returns unit vectors', async () => {
    const e = createLocalEmbedder({ dimension: 256 });
    expect(await e.identity()).toEqual({ id: 'local-ngram-v1', dimension: 256 });
    const [v] = await e.embed(['Hybrid search merges keyword and vector results']);
    expect(v).toHaveLength(256);
    expect(dot(v!, v!)).toBeCloseTo(1, 10);
  });

  it('is deterministic and case/accent-insensitive', () => {
    expect(embedLexical('Café Search', 128)).toEqual(embedLexical('cafe search', 128));
    expect(embedLexical('alpha beta', 128)).toEqual(embedLexical('alpha beta', 128));
  });

  it('scores shared words and word fragments above unrelated text, but knows no synonyms', () => {
    const q = embedLexical('indexing pipeline latency', 768);
    const related = embedLexical('The indexer pipeline reports its latency as a metric', 768);
    const unrelated = embedLexical('Bananas grow in tropical climates', 768);
    const synonym = embedLexical('delay of the ingestion process', 768);
    expect(dot(q, related)).toBeGreaterThan(0.3);
    expect(dot(q, unrelated)).toBeLessThan(0.1);
    expect(dot(q, synonym)).toBeLessThan(0.1); // lexical, not semantic
  });

  it('down-weights stop words and gives the zero vector for text without words', () => {
    const a = embedLexical('the of and river', 512);
    const b = embedLexical('river', 512);
    expect(dot(a, b)).toBeGreaterThan(0.9);
    expect(embedLexical(' ,.; ', 64).every((x) => x === 0)).toBe(true);
    expect(() => createLocalEmbedder({ dimension: 3 })).toThrow(RangeError);
  });
});
