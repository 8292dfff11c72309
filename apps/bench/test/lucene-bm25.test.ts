import { describe, expect, it } from '@jest/globals';
import { cranfieldDir, loadCranfield } from '../src/index.js';
import { englishAnalyze, LUCENE_B, LUCENE_K1, luceneBm25, luceneBm25Quality, luceneIdf } from '../src/lucene-bm25.js';

// The Lucene-style BM25 reference of the quality rows: Lucene's EnglishAnalyzer chain and its
// BM25Similarity formula, checked term by term on small inputs, then (when the collection is
// given) on Cranfield.

describe("Lucene's EnglishAnalyzer, in process", () => {
  it('splits on word boundaries, drops possessives and the 33 stop words, lower-cases and Porter-stems', () => {
    expect(englishAnalyze("The quick brown fox's dogs jumped over the LAZY boundary-layers, and it's done.")).toEqual([
      'quick',
      'brown',
      'fox',
      'dog',
      'jump',
      'over',
      'lazi',
      'boundari',
      'layer',
      'done',
    ]);
    // Numbers with a decimal point stay one token, as StandardTokenizer keeps them.
    expect(englishAnalyze('Mach 3.5 flows')).toEqual(['mach', '3.5', 'flow']);
    expect(englishAnalyze('the of and to in a is')).toEqual([]);
  });
});

describe("Lucene's BM25Similarity", () => {
  const docs = [
    { id: 'd1', title: 'Boundary layer', text: 'The boundary layer thickens downstream.' },
    { id: 'd2', title: 'Shock waves', text: 'Shock waves at supersonic speed; the shock stands off the body.' },
    { id: 'd3', title: '', text: '' },
    { id: 'd4', title: 'Layer', text: 'A layer.' },
  ];
  const index = luceneBm25(docs);

  it('uses k1 = 1.2, b = 0.75 and idf = ln(1 + (N − n + 0.5)/(n + 0.5))', () => {
    expect([LUCENE_K1, LUCENE_B]).toEqual([1.2, 0.75]);
    expect(luceneIdf(3, 1)).toBeCloseTo(Math.log(1 + 2.5 / 1.5), 12);
    expect(luceneIdf(3, 3)).toBeGreaterThan(0);
  });

  it('scores Σ idf · tf / (tf + k1 · (1 − b + b · dl/avgdl)) over the query terms, the empty document not counted', () => {
    // Lengths after analysis (stop words are not counted), and tf: layer 2 in d1 and d4, shock 3 in d2.
    const lengths = docs.map((d) => englishAnalyze(`${d.title} ${d.text}`).length);
    expect(lengths).toEqual([6, 10, 0, 2]);
    const avgdl = (6 + 10 + 2) / 3;
    const term = (tf: number, dl: number, n: number) =>
      luceneIdf(3, n) * (tf / (tf + LUCENE_K1 * (1 - LUCENE_B + (LUCENE_B * dl) / avgdl)));
    const scores = index.scores('layer shock');
    expect([...scores.keys()].sort()).toEqual(['d1', 'd2', 'd4']);
    expect(scores.get('d1')).toBeCloseTo(term(2, 6, 2), 12);
    expect(scores.get('d2')).toBeCloseTo(term(3, 10, 1), 12);
    expect(scores.get('d4')).toBeCloseTo(term(2, 2, 2), 12);
    // A query term given twice counts twice.
    expect(index.scores('layer layer').get('d1')).toBeCloseTo(2 * term(2, 6, 2), 12);
  });

  it('ranks best first, ties in document order, up to the limit; stop words alone match nothing', () => {
    expect(index.search('layer shock', 10)).toEqual(['d2', 'd4', 'd1']);
    expect(index.search('layer shock', 1)).toEqual(['d2']);
    const twins = luceneBm25([
      { id: 'b', title: 'x', text: 'flow' },
      { id: 'a', title: 'x', text: 'flow' },
    ]);
    expect(twins.search('flow', 10)).toEqual(['b', 'a']);
    expect(index.search('the of and', 10)).toEqual([]);
  });
});

const collection = loadCranfield(cranfieldDir(undefined));
(('data' in collection ? describe : describe.skip) as typeof describe)(
  `the Lucene-style run on Cranfield${'data' in collection ? '' : ' — skipped unless QUARRY_CRANFIELD_DIR is set'}`,
  () => {
    it('scores near what this analyzer and formula measured (nDCG@10 0.355, Recall@100 0.736)', () => {
      if (!('data' in collection)) return;
      const { ndcg, recall } = luceneBm25Quality(collection.data);
      // Loose bounds: they catch a broken analyzer or formula, not a rounding.
      expect(ndcg).toBeGreaterThan(0.33);
      expect(ndcg).toBeLessThan(0.4);
      expect(recall).toBeGreaterThan(0.7);
    });
  },
);
