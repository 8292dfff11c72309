import { words, type ChunkHit } from '@quarry/search-index';

export type QueryType = 'keyword' | 'balanced' | 'semantic';

/**
 * Short queries are lookups of names and terms (BM25 is best at those); long, sentence-like
 * queries describe a need (vectors help more). Word counts: 1–2 → keyword, 3–5 → balanced,
 * 6+ → semantic. A quoted phrase always means keyword.
 */
export function classifyQuery(query: string): QueryType {
  if (/"[^"]+"/.test(query)) return 'keyword';
  const n = words(query).length;
  if (n <= 2) return 'keyword';
  if (n <= 5) return 'balanced';
  return 'semantic';
}

/**
 * Per-leg multipliers of the RRF terms. keyword: BM25 1.0 / vectors 0.5; balanced: 1.0 / 1.0;
 * semantic: 0.7 / 1.0. The favoured leg decides ties and close calls while a document found by
 * both legs still beats one found by a single leg at a similar rank (0.5 + 1.0 > 1.0 … at equal
 * rank), which is the point of hybrid search.
 */
export interface LegWeights {
  keyword: number;
  semantic: number;
}

export const FUSION_WEIGHTS: Readonly<Record<QueryType, LegWeights>> = Object.freeze({
  keyword: { keyword: 1, semantic: 0.5 },
  balanced: { keyword: 1, semantic: 1 },
  semantic: { keyword: 0.7, semantic: 1 },
});

/**
 * Weights when the vector leg comes from a LEXICAL embedder (the local one): that leg is a
 * noisier copy of BM25, useful only for fragment matches, so it gets a small constant weight.
 * Measured on Cranfield (ADR 0009): BM25 alone nDCG@10 0.364; hybrid with vectors at 1.0 0.334,
 * at 0.5 0.344, at 0.25 0.354 (Recall@100 0.750 vs 0.746 for BM25 alone).
 */
export const LEXICAL_FUSION_WEIGHTS: Readonly<Record<QueryType, LegWeights>> = Object.freeze({
  keyword: { keyword: 1, semantic: 0.25 },
  balanced: { keyword: 1, semantic: 0.25 },
  semantic: { keyword: 1, semantic: 0.25 },
});

const RRF_K = 60;

export interface FusedResult {
  sourceTable: string;
  sourceId: string;
  title: string;
  rrfScore: number;
  inKeyword: boolean;
  inSemantic: boolean;
  /** 1-based rank of the source in the keyword leg (by its best chunk), or null. */
  keywordRank: number | null;
  semanticRank: number | null;
  /** The chunk that contributed the largest RRF term; it gives the snippet. */
  bestChunk: ChunkHit;
}

/** Collapse a ranked chunk list to a ranked source list; each source keeps its best (first) chunk. */
export function rankSources(hits: readonly ChunkHit[]): { key: string; hit: ChunkHit }[] {
  const seen = new Set<string>();
  const out: { key: string; hit: ChunkHit }[] = [];
  for (const hit of hits) {
    const key = `${hit.sourceTable}\u0000${hit.sourceId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ key, hit });
  }
  return out;
}

/**
 * Reciprocal Rank Fusion over sources: score = Σ weight_leg / (k + rank_leg), rank 1-based, from
 * chunk lists already ordered best-first. Ties break on the better single rank, then on the
 * source key, so the order is deterministic.
 */
export function fuse(
  keywordHits: readonly ChunkHit[],
  semanticHits: readonly ChunkHit[],
  options: { queryType: QueryType; limit: number; k?: number; weights?: LegWeights },
): FusedResult[] {
  const k = options.k ?? RRF_K;
  const w = options.weights ?? FUSION_WEIGHTS[options.queryType];
  const bySource = new Map<string, FusedResult & { bestTerm: number }>();
  const addLeg = (hits: readonly ChunkHit[], leg: 'keyword' | 'semantic'): void => {
    rankSources(hits).forEach(({ key, hit }, i) => {
      const rank = i + 1;
      const term = w[leg] / (k + rank);
      let r = bySource.get(key);
      if (!r) {
        r = {
          sourceTable: hit.sourceTable,
          sourceId: hit.sourceId,
          title: hit.title,
          rrfScore: 0,
          inKeyword: false,
          inSemantic: false,
          keywordRank: null,
          semanticRank: null,
          bestChunk: hit,
          bestTerm: term,
        };
        bySource.set(key, r);
      } else if (term > r.bestTerm) {
        r.bestChunk = hit;
        r.bestTerm = term;
      }
      r.rrfScore += term;
      if (leg === 'keyword') {
        r.inKeyword = true;
        r.keywordRank = rank;
      } else {
        r.inSemantic = true;
        r.semanticRank = rank;
      }
    });
  };
  addLeg(keywordHits, 'keyword');
  addLeg(semanticHits, 'semantic');
  const bestRank = (r: FusedResult): number => Math.min(r.keywordRank ?? Infinity, r.semanticRank ?? Infinity);
  return [...bySource.entries()]
    .sort(
      ([ka, a], [kb, b]) => b.rrfScore - a.rrfScore || bestRank(a) - bestRank(b) || (ka < kb ? -1 : ka > kb ? 1 : 0),
    )
    .slice(0, options.limit)
    .map(([, { bestTerm: _bestTerm, ...r }]) => r);
}
