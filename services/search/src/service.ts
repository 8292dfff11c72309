import type { searchV1 } from '@quarry/contracts';
import { type CallContext, unary } from '@quarry/grpc';
import type { Logger } from 'pino';
import { artifactTypeFilter, queryTypeToProto, sourceTableFilter, sourceTableToProto } from './enums.js';
import { searchErrors, type SearchLeg } from './errors.js';
import { buildHybridSearch, type HybridSearchRequest, type HybridSearchResponse } from './hybrid.js';
import {
  EmbedderMismatchError,
  type ChunkFilters,
  type Embedder,
  type SearchBackends,
  type SearchScope,
} from '@quarry/search-index';

export interface SearchServiceDeps {
  /** Opened and closed by the caller (one set may be shared with an in-process indexer). */
  backends: Pick<SearchBackends, 'bm25' | 'vectors' | 'embedder'>;
  logger: Logger;
}

const MAX_QUERY_LENGTH = 2000;
const MAX_TAGS = 20;
const MAX_TAG_LENGTH = 100;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An engine call that failed, tagged with the part of the search it belongs to. */
class LegFailure extends Error {
  constructor(
    readonly leg: SearchLeg,
    cause: unknown,
  ) {
    super(`search ${leg} failed`, { cause });
  }
}

async function onLeg<T>(leg: SearchLeg, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof EmbedderMismatchError) throw error;
    throw new LegFailure(leg, error);
  }
}

/** The same backends, with every engine failure tagged by leg so the error can name it. */
function tagged(backends: SearchServiceDeps['backends']) {
  const { bm25, vectors, embedder } = backends;
  const taggedEmbedder: Embedder = {
    ...(embedder.lexical ? { lexical: true } : {}),
    identity: () => onLeg('embedder', () => embedder.identity()),
    embed: (texts) => onLeg('embedder', () => embedder.embed(texts)),
  };
  return {
    bm25: { search: (query: string, scope: SearchScope) => onLeg('keyword index', () => bm25.search(query, scope)) },
    vectors: {
      embedder: vectors.embedder,
      search: (vector: number[], scope: SearchScope) => onLeg('vector index', () => vectors.search(vector, scope)),
    },
    embedder: taggedEmbedder,
  };
}

/** Validate a request and turn it into the hybrid search's terms (enums → stored names). */
export function toHybridRequest(req: searchV1.SearchSourcesRequest, orgId: string): HybridSearchRequest {
  const query = req.query.trim();
  if (query === '') throw searchErrors.INVALID_ARGUMENT({ field: 'query', rule: 'must contain words to search for' });
  if (query.length > MAX_QUERY_LENGTH)
    throw searchErrors.INVALID_ARGUMENT({ field: 'query', rule: `must be at most ${MAX_QUERY_LENGTH} characters` });
  const limit = req.limit ?? 10;
  if (!Number.isInteger(limit) || limit < 1 || limit > 50)
    throw searchErrors.INVALID_ARGUMENT({ field: 'limit', rule: 'must be between 1 and 50 (default 10)' });

  const filters: ChunkFilters = {};
  const sourceTable = sourceTableFilter(req.sourceTable);
  if (sourceTable) filters.sourceTable = sourceTable;
  const artifactType = artifactTypeFilter(req.artifactType);
  if (artifactType) filters.artifactType = artifactType;
  if (req.planId !== undefined) {
    if (!UUID.test(req.planId))
      throw searchErrors.INVALID_ARGUMENT({ field: 'planId', rule: 'must be a plan ID (a UUID)' });
    filters.planId = req.planId.toLowerCase();
  }
  if (req.tags.length > 0) {
    if (req.tags.length > MAX_TAGS)
      throw searchErrors.INVALID_ARGUMENT({ field: 'tags', rule: `may list at most ${MAX_TAGS} tags` });
    if (req.tags.some((t) => t.trim() === '' || t.length > MAX_TAG_LENGTH)) {
      throw searchErrors.INVALID_ARGUMENT({
        field: 'tags',
        rule: `must each be 1 to ${MAX_TAG_LENGTH} characters, not blank`,
      });
    }
    if (new Set(req.tags).size !== req.tags.length)
      throw searchErrors.INVALID_ARGUMENT({ field: 'tags', rule: 'must not repeat a tag' });
    filters.tags = [...req.tags];
  }
  return { orgId, query, limit, filters };
}

export function toProtoResponse(r: HybridSearchResponse): searchV1.SearchSourcesResponse {
  return {
    query: r.query,
    queryType: queryTypeToProto(r.queryType),
    resultCount: r.resultCount,
    keywordResults: r.keywordResults,
    semanticResults: r.semanticResults,
    results: r.results.map((x) => ({
      id: x.id,
      sourceTable: sourceTableToProto(x.sourceTable),
      sourceId: x.sourceId,
      title: x.title,
      rrfScore: x.rrfScore,
      inKeyword: x.inKeyword,
      inSemantic: x.inSemantic,
      keywordRank: x.keywordRank ?? undefined,
      semanticRank: x.semanticRank ?? undefined,
      textSnippet: x.textSnippet,
    })),
  };
}

/**
 * The SearchService rpcs. The org comes from the caller's verified identity and nothing else,
 * and goes into both engines' filters (see buildHybridSearch). Engine failures become
 * SEARCH_UNAVAILABLE naming the leg; their details stay in this service's log.
 */
export function createSearchService(deps: SearchServiceDeps): searchV1.SearchServiceServer {
  const search = buildHybridSearch(tagged(deps.backends));

  function failure(error: unknown, ctx: CallContext): unknown {
    if (error instanceof EmbedderMismatchError) {
      deps.logger.error({ err: error, requestId: ctx.identity.requestId }, 'search index and embedder do not match');
      return searchErrors.INDEX_EMBEDDER_MISMATCH(
        { index: error.stored, configured: error.requested },
        { cause: error },
      );
    }
    if (error instanceof RangeError)
      return searchErrors.INVALID_ARGUMENT(
        { field: 'limit', rule: 'must be between 1 and 50 (default 10)' },
        { cause: error },
      );
    if (error instanceof LegFailure) {
      deps.logger.error(
        { err: error.cause, leg: error.leg, requestId: ctx.identity.requestId },
        'search engine failed',
      );
      return searchErrors.SEARCH_UNAVAILABLE({ leg: error.leg }, { details: { leg: error.leg }, cause: error.cause });
    }
    return error; // a bug: the gRPC server logs it and answers INTERNAL
  }

  return {
    searchSources: unary(async (req: searchV1.SearchSourcesRequest, ctx): Promise<searchV1.SearchSourcesResponse> => {
      const request = toHybridRequest(req, ctx.identity.orgId);
      try {
        return toProtoResponse(await search(request));
      } catch (error) {
        throw failure(error, ctx);
      }
    }),
  };
}
