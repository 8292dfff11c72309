import {
  classifyQuery,
  rankResults,
  rankSources,
  type FusedResult,
  type QueryType,
  type SearchMode,
} from './core/fusion.js';
import { snippet } from './core/snippet.js';
import {
  EmbedderMismatchError,
  type Bm25Index,
  type ChunkFilters,
  type Embedder,
  type ChunkHit,
  type VectorIndex,
} from '@quarry/search-index';
import { storedKey, type StoredSources } from './stored-sources.js';

export interface HybridSearchRequest {
  orgId: string;
  query: string;
  /** 1–50, default 10. */
  limit?: number;
  /** Which legs run: both (default), BM25 only, vectors only. */
  mode?: SearchMode;
  filters?: ChunkFilters;
  /** The caller's request id, passed on to the artifact store when sources are checked. */
  requestId?: string;
}

/** One result per source: the fusion's figures, with the best chunk turned into a snippet. */
export type HybridSearchResultItem = Omit<FusedResult, 'bestChunk'> & {
  /** The source id (results are per source, not per chunk). */
  id: string;
  textSnippet: string;
  /** The source's plan and tags, as stored beside its chunks. */
  planId?: string;
  tags: string[];
  /** When the source was stored (ISO 8601), when its documents record it. */
  createdAt?: string;
  /** The page (slide, sheet) of a source document the best chunk lies on. */
  page?: number;
};

export interface HybridSearchResponse {
  query: string;
  queryType: QueryType;
  resultCount: number;
  mode: SearchMode;
  /** Distinct sources the keyword leg found (before the limit); 0 when the mode did not run it. */
  keywordResults: number;
  semanticResults: number;
  results: HybridSearchResultItem[];
}

/** Only what a search reads: the caller keeps ownership (and closing) of the backends. */
export interface HybridSearchDeps {
  bm25: Pick<Bm25Index, 'search'>;
  vectors: Pick<VectorIndex, 'search' | 'embedder'>;
  embedder: Embedder;
  /** Chunks fetched per leg: enough that several chunks of one source don't crowd others out. */
  candidates?: (limit: number) => number;
  /**
   * Which sources the hits name are still stored. When given, hits of any other source (deleted
   * while the indexer has not yet removed its chunks) are dropped before ranking, so counts,
   * ranks and the page size are those of stored sources only.
   */
  stored?: StoredSources;
}

/**
 * The search_sources core: the legs the mode asks for run in parallel (each with the org filter
 * inside its engine), chunks collapse to sources, `rankResults` ranks them (BM25 first with a
 * lexical embedder, weighted Reciprocal Rank Fusion with a semantic one; vector-only hits under
 * the embedder's similarity floor dropped), and the best chunk of each source gives a plain-text
 * snippet.
 */
export function buildHybridSearch(
  deps: HybridSearchDeps,
): (request: HybridSearchRequest) => Promise<HybridSearchResponse> {
  const candidates = deps.candidates ?? ((limit: number) => Math.max(50, limit * 5));
  let checked: Promise<void> | undefined;
  const checkEmbedder = async (): Promise<void> => {
    const id = await deps.embedder.identity();
    const built = deps.vectors.embedder;
    if (id.id !== built.id || id.dimension !== built.dimension) throw new EmbedderMismatchError(built, id);
  };

  return async (request) => {
    const limit = request.limit ?? 10;
    if (!Number.isInteger(limit) || limit < 1 || limit > 50)
      throw new RangeError('limit must be an integer between 1 and 50');
    const mode = request.mode ?? 'hybrid';
    if (mode !== 'keyword') {
      // Checked once; a failure to reach the embedder is retried on the next request, a mismatch
      // is final. Keyword searches need no embedder, so they work even when it is wrong.
      checked ??= checkEmbedder().catch((error: unknown) => {
        if (!(error instanceof EmbedderMismatchError)) checked = undefined;
        throw error;
      });
      await checked;
    }
    const queryType = classifyQuery(request.query);
    const scope = { orgId: request.orgId, filters: request.filters, limit: candidates(limit) };
    const found = await Promise.all([
      mode === 'semantic' ? [] : deps.bm25.search(request.query, scope),
      mode === 'keyword' ? [] : deps.embedder.embed([request.query]).then(([v]) => deps.vectors.search(v!, scope)),
    ]);
    const [keywordHits, semanticHits] = deps.stored ? await onlyStored(deps.stored, request, found) : found;
    const fused = rankResults(keywordHits, semanticHits, { mode, queryType, limit, embedder: deps.embedder });
    return {
      query: request.query,
      queryType,
      mode,
      resultCount: fused.length,
      keywordResults: rankSources(keywordHits).length,
      semanticResults: rankSources(semanticHits).length,
      results: fused.map(({ bestChunk, ...r }) => ({
        id: r.sourceId,
        ...r,
        textSnippet: snippet(bestChunk.text, request.query),
        ...(bestChunk.planId ? { planId: bestChunk.planId } : {}),
        tags: bestChunk.tags ?? [],
        ...(bestChunk.createdAt ? { createdAt: bestChunk.createdAt } : {}),
        ...(bestChunk.unit !== undefined ? { page: bestChunk.unit } : {}),
      })),
    };
  };
}

/** The hits of both legs whose sources are still stored: one check for all the sources they name. */
async function onlyStored(
  stored: StoredSources,
  request: HybridSearchRequest,
  legs: [ChunkHit[], ChunkHit[]],
): Promise<[ChunkHit[], ChunkHit[]]> {
  const sources = new Map<string, ChunkHit>();
  for (const hit of [...legs[0], ...legs[1]]) sources.set(storedKey(hit), hit);
  if (sources.size === 0) return legs;
  const kept = await stored({ orgId: request.orgId, requestId: request.requestId }, [...sources.values()]);
  const keep = (hits: ChunkHit[]) => hits.filter((hit) => kept.has(storedKey(hit)));
  return [keep(legs[0]), keep(legs[1])];
}
