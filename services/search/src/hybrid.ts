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
import type { artifactV1 } from '@quarry/contracts';
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
  /** The source's first instruction flags, as its row holds them (none unless checked against the rows). */
  instructionFlags: artifactV1.InstructionFlag[];
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
  /**
   * With a semantic embedder both legs run at once; once one has answered, the other may take
   * until this long after the search began, else the page is the first leg's alone (and `mode`
   * says which leg ran). Default 2 s.
   */
  legTimeoutMs?: number | undefined;
}

/**
 * The search_sources core: the legs the mode asks for run (each with the org filter inside its
 * engine), chunks collapse to sources, `rankResults` ranks them (BM25 first with a lexical
 * embedder, weighted Reciprocal Rank Fusion with a semantic one; vector-only hits under the
 * embedder's similarity floor dropped), and the best chunk of each source gives a plain-text
 * snippet. Only work that can change the page is done: with a lexical embedder the vector leg
 * only appends sources after BM25's, so it runs only when BM25 found fewer stored sources than
 * the page holds; with a semantic embedder both legs run at once and the slower one is bounded.
 * `mode` in the answer is what ran.
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
    const check = storedFilter(deps.stored, request);
    const legs: Legs = {
      keyword: () => deps.bm25.search(request.query, scope),
      semantic: () => deps.embedder.embed([request.query]).then(([v]) => deps.vectors.search(v!, scope)),
      stored: check.filter,
    };
    const ran =
      mode !== 'hybrid'
        ? await oneLeg(legs, mode)
        : deps.embedder.lexical
          ? await keywordThenVectors(legs, limit)
          : await bothBounded(legs, deps.legTimeoutMs ?? DEFAULT_LEG_TIMEOUT_MS);
    const { keywordHits, semanticHits } = ran;
    const fused = rankResults(keywordHits, semanticHits, {
      mode: ran.mode,
      queryType,
      limit,
      embedder: deps.embedder,
    });
    return {
      query: request.query,
      queryType,
      mode: ran.mode,
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
        instructionFlags: check.flags.get(storedKey(r)) ?? [],
      })),
    };
  };
}

const DEFAULT_LEG_TIMEOUT_MS = 2_000;

/** A search's two legs and its stored-sources filter, ready to run. */
interface Legs {
  keyword: () => Promise<ChunkHit[]>;
  semantic: () => Promise<ChunkHit[]>;
  stored: (hits: ChunkHit[]) => Promise<ChunkHit[]>;
}

/** What ran, and the stored hits of each leg (empty for a leg that did not run). */
interface Ran {
  mode: SearchMode;
  keywordHits: ChunkHit[];
  semanticHits: ChunkHit[];
}

async function oneLeg(legs: Legs, mode: 'keyword' | 'semantic'): Promise<Ran> {
  const hits = await legs.stored(await legs[mode]());
  return mode === 'keyword'
    ? { mode, keywordHits: hits, semanticHits: [] }
    : { mode, keywordHits: [], semanticHits: hits };
}

/**
 * Lexical embedder: BM25's stored sources come first in BM25's order and the vector leg only
 * appends others (keywordFirst), so when BM25 alone fills the page the vector leg cannot change
 * it and does not run.
 */
async function keywordThenVectors(legs: Legs, limit: number): Promise<Ran> {
  const keywordHits = await legs.stored(await legs.keyword());
  if (rankSources(keywordHits).length >= limit) return { mode: 'keyword', keywordHits, semanticHits: [] };
  return { mode: 'hybrid', keywordHits, semanticHits: await legs.stored(await legs.semantic()) };
}

/**
 * Semantic embedder: both legs at once; when one has answered, the other gets until
 * `timeoutMs` after the start, else the first leg's page stands alone. A leg's failure fails the
 * search as before (a leg that timed out may still fail later: that is ignored).
 */
async function bothBounded(legs: Legs, timeoutMs: number): Promise<Ran> {
  const deadline = Date.now() + timeoutMs;
  const keyword = legs.keyword();
  const semantic = legs.semantic();
  // Both are awaited below, but a leg left behind (late, or after the other failed) must not
  // become an unhandled rejection.
  for (const leg of [keyword, semantic]) leg.catch(() => undefined);
  const first = await Promise.race([keyword.then(() => 'keyword' as const), semantic.then(() => 'semantic' as const)]);
  const other = first === 'keyword' ? semantic : keyword;
  let timer: NodeJS.Timeout | undefined;
  const late = Symbol('late');
  const settled = await Promise.race([
    other,
    new Promise<typeof late>(
      (resolve) => (timer = setTimeout(() => resolve(late), Math.max(0, deadline - Date.now()))),
    ),
  ]).finally(() => clearTimeout(timer));
  if (settled === late) {
    const hits = await legs.stored(await (first === 'keyword' ? keyword : semantic));
    return first === 'keyword'
      ? { mode: 'keyword', keywordHits: hits, semanticHits: [] }
      : { mode: 'semantic', keywordHits: [], semanticHits: hits };
  }
  const [k, v] = await Promise.all([keyword, semantic]);
  await legs.stored([...k, ...v]); // one check for the sources of both legs
  return { mode: 'hybrid', keywordHits: await legs.stored(k), semanticHits: await legs.stored(v) };
}

/**
 * Keeps the hits whose sources are still stored; each source is asked about once per search
 * (one ExistingSources call per batch of new sources), whatever the number of legs. The same
 * answer gives each stored source's instruction flags, gathered in `flags` by storedKey.
 */
function storedFilter(
  stored: StoredSources | undefined,
  request: HybridSearchRequest,
): { filter: (hits: ChunkHit[]) => Promise<ChunkHit[]>; flags: ReadonlyMap<string, artifactV1.InstructionFlag[]> } {
  const flags = new Map<string, artifactV1.InstructionFlag[]>();
  if (!stored) return { filter: async (hits) => hits, flags };
  const known = new Map<string, boolean>();
  const filter = async (hits: ChunkHit[]) => {
    const asked = new Map<string, ChunkHit>();
    for (const hit of hits) if (!known.has(storedKey(hit))) asked.set(storedKey(hit), hit);
    if (asked.size > 0) {
      const kept = await stored({ orgId: request.orgId, requestId: request.requestId }, [...asked.values()]);
      for (const key of asked.keys()) known.set(key, kept.has(key));
      for (const [key, found] of kept.flags ?? []) flags.set(key, found);
    }
    return hits.filter((hit) => known.get(storedKey(hit)) === true);
  };
  return { filter, flags };
}
