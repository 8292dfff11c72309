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
  options: { queryType: QueryType; limit: number; k?: number; weights?: LegWeights; floor?: number },
): FusedResult[] {
  const k = options.k ?? RRF_K;
  const w = options.weights ?? FUSION_WEIGHTS[options.queryType];
  const keywordKeys = new Set(rankSources(keywordHits).map((s) => s.key));
  const floor = options.floor ?? -Infinity;
  const bySource = new Map<string, FusedResult & { bestTerm: number }>();
  const addLeg = (hits: readonly ChunkHit[], leg: 'keyword' | 'semantic'): void => {
    rankSources(hits).forEach(({ key, hit }, i) => {
      // A vector-only hit below the embedder's floor is noise: dropped, its rank not taken.
      if (leg === 'semantic' && hit.score < floor && !keywordKeys.has(key)) return;
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

/**
 * For a LEXICAL vector leg (the local embedder): that leg is a noisier copy of BM25, so any weight
 * in a fusion reshuffles BM25's confident top ranks (on Cranfield, ADR 0029: BM25 alone nDCG@10
 * 0.364; RRF with the vector leg at 0.1 → 0.361, 0.25 → 0.354, 1.0 → 0.333). Here BM25's ranking
 * is kept whole and the vector leg only adds what BM25 did not find (fragments, typos, a query
 * whose words no document shares), after BM25's results and above the embedder's similarity
 * floor. The first results are therefore BM25's own, in its order: this never ranks worse than
 * the BM25 leg alone. The score is the RRF of the final list, so it falls with the rank.
 */
export function keywordFirst(
  keywordHits: readonly ChunkHit[],
  semanticHits: readonly ChunkHit[],
  options: { limit: number; k?: number; floor?: number },
): FusedResult[] {
  const k = options.k ?? RRF_K;
  const floor = options.floor ?? -Infinity;
  const semantic = rankSources(semanticHits);
  const semanticRank = new Map(semantic.map(({ key }, i) => [key, i + 1]));
  const keyword = rankSources(keywordHits);
  const keywordKeys = new Set(keyword.map(({ key }) => key));
  const ordered = [
    ...keyword.map(({ key, hit }, i) => ({ hit, keywordRank: i + 1, semanticRank: semanticRank.get(key) ?? null })),
    ...semantic
      .filter(({ key, hit }) => !keywordKeys.has(key) && hit.score >= floor)
      .map(({ key, hit }) => ({ hit, keywordRank: null, semanticRank: semanticRank.get(key)! })),
  ];
  return ordered.slice(0, options.limit).map(({ hit, keywordRank, semanticRank }, i) => ({
    sourceTable: hit.sourceTable,
    sourceId: hit.sourceId,
    title: hit.title,
    rrfScore: 1 / (k + i + 1),
    inKeyword: keywordRank !== null,
    inSemantic: semanticRank !== null,
    keywordRank,
    semanticRank,
    bestChunk: hit,
  }));
}

/** Which legs a search runs: both (the default), BM25 only, or vectors only. */
export type SearchMode = 'hybrid' | 'keyword' | 'semantic';

/** What fusion needs to know about the embedder behind the vector leg. */
export interface VectorLegTraits {
  lexical?: boolean;
  /** Cosine similarity under which a hit only the vector leg found is dropped. */
  similarityFloor?: number;
}

/**
 * The one place that decides how search_sources ranks, for the service and the benchmark alike.
 * hybrid: BM25 first for a lexical embedder (keywordFirst), weighted RRF for a semantic one;
 * keyword: BM25's ranking; semantic: the vector leg's, above the floor. A leg the mode does not
 * run is passed empty.
 */
export function rankResults(
  keywordHits: readonly ChunkHit[],
  semanticHits: readonly ChunkHit[],
  options: { mode: SearchMode; queryType: QueryType; limit: number; embedder: VectorLegTraits },
): FusedResult[] {
  const { mode, queryType, limit, embedder } = options;
  const floor = embedder.similarityFloor;
  if (mode === 'keyword') return keywordFirst(keywordHits, [], { limit });
  if (mode === 'semantic') return keywordFirst([], semanticHits, { limit, floor });
  if (embedder.lexical) return keywordFirst(keywordHits, semanticHits, { limit, floor });
  return fuse(keywordHits, semanticHits, { queryType, limit, floor });
}
