import { stemmer } from 'stemmer';
import { type Cranfield, ndcgAt10, recallAt100 } from './cranfield.js';

/**
 * A standard Lucene-style BM25 run, the reference the quality rows hold Quarry's BM25 leg and
 * search_sources to: what an out-of-the-box Lucene index (EnglishAnalyzer, BM25Similarity with
 * its defaults) ranks for the same documents and queries, computed in process so the bench needs
 * no JVM. One field per document, title and text together (the "flat" indexes of the usual BEIR
 * baselines); the query is a bag of words, a term given twice counting twice (as two SHOULD
 * clauses of a parsed query do). Lucene stores each document's length in one byte (a lossy
 * norm); this run uses the exact length, which moves scores by a rounding, not rankings by much.
 */

/** Lucene's BM25Similarity defaults. */
export const LUCENE_K1 = 1.2;
export const LUCENE_B = 0.75;

/** EnglishAnalyzer's default stop set (Lucene's ENGLISH_STOP_WORDS_SET), word for word. */
const LUCENE_ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'but',
  'by',
  'for',
  'if',
  'in',
  'into',
  'is',
  'it',
  'no',
  'not',
  'of',
  'on',
  'or',
  'such',
  'that',
  'the',
  'their',
  'then',
  'there',
  'these',
  'they',
  'this',
  'to',
  'was',
  'will',
  'with',
]);

// UAX #29 word boundaries, the rules Lucene's StandardTokenizer implements.
const words = new Intl.Segmenter('en', { granularity: 'word' });

/**
 * EnglishAnalyzer's chain: StandardTokenizer (UAX #29 words) → EnglishPossessiveFilter (a
 * trailing 's goes) → LowerCaseFilter → StopFilter → PorterStemFilter (the original Porter
 * algorithm, as the `stemmer` package implements it).
 */
export function englishAnalyze(text: string): string[] {
  const out: string[] = [];
  for (const { segment, isWordLike } of words.segment(text)) {
    if (!isWordLike) continue;
    const token = segment.replace(/['’\uFF07]s$/i, '').toLowerCase();
    if (token === '' || LUCENE_ENGLISH_STOP_WORDS.has(token)) continue;
    out.push(stemmer(token));
  }
  return out;
}

/** Lucene's BM25 idf: ln(1 + (N − n + 0.5) / (n + 0.5)), never negative. */
export function luceneIdf(docCount: number, docFreq: number): number {
  return Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5));
}

export interface LuceneBm25 {
  /** The ids of the best `limit` documents for the query, best first; ties go to the earlier document (Lucene's doc id order). */
  search(query: string, limit: number): string[];
  /** Each matching document's score for the query (tests compare it with the formula). */
  scores(query: string): Map<string, number>;
}

/** An in-memory inverted index over the documents, scored as Lucene's BM25Similarity scores. */
export function luceneBm25(
  docs: readonly { id: string; title: string; text: string }[],
  options: { k1?: number; b?: number } = {},
): LuceneBm25 {
  const k1 = options.k1 ?? LUCENE_K1;
  const b = options.b ?? LUCENE_B;
  const postings = new Map<string, { doc: number; tf: number }[]>();
  const lengths: number[] = [];
  docs.forEach((d, doc) => {
    const terms = englishAnalyze(`${d.title} ${d.text}`);
    lengths.push(terms.length);
    const tf = new Map<string, number>();
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [term, count] of tf) {
      if (!postings.has(term)) postings.set(term, []);
      postings.get(term)!.push({ doc, tf: count });
    }
  });
  // Lucene's docCount and avgdl count only documents that have the field (an empty one has not).
  const docCount = lengths.filter((n) => n > 0).length;
  const avgdl = lengths.reduce((sum, n) => sum + n, 0) / Math.max(docCount, 1);

  const scoreAll = (query: string): Map<number, number> => {
    const weights = new Map<string, number>();
    for (const t of englishAnalyze(query)) weights.set(t, (weights.get(t) ?? 0) + 1);
    const scores = new Map<number, number>();
    for (const [term, qtf] of weights) {
      const list = postings.get(term);
      if (!list) continue;
      const idf = luceneIdf(docCount, list.length);
      for (const { doc, tf } of list) {
        const norm = k1 * (1 - b + (b * lengths[doc]!) / avgdl);
        scores.set(doc, (scores.get(doc) ?? 0) + qtf * idf * (tf / (tf + norm)));
      }
    }
    return scores;
  };

  return {
    search(query, limit) {
      return [...scoreAll(query)]
        .sort(([da, a], [db, s]) => s - a || da - db)
        .slice(0, limit)
        .map(([doc]) => docs[doc]!.id);
    },
    scores(query) {
      return new Map([...scoreAll(query)].map(([doc, s]) => [docs[doc]!.id, s]));
    },
  };
}

/** The Lucene-style run over a whole collection: mean nDCG@10 and Recall@100 over its queries. */
export function luceneBm25Quality(data: Cranfield): { ndcg: number; recall: number } {
  const index = luceneBm25(data.docs);
  let ndcg = 0;
  let recall = 0;
  for (const query of data.queries) {
    const relevant = data.qrels.get(query.id) ?? new Map<string, number>();
    const ranked = index.search(query.text, 100);
    ndcg += ndcgAt10(ranked, relevant);
    recall += recallAt100(ranked, relevant);
  }
  return { ndcg: ndcg / data.queries.length, recall: recall / data.queries.length };
}
