import { type searchV1, type SourceTableName, sourceUrl } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import type { Logger } from 'pino';
import { toHybridRequest } from '../core/request.js';
import { searchFailure } from '../engine-failures.js';
import { queryTypeToProto, searchModeToProto, sourceTableToProto } from '../enums.js';
import type { HybridSearchRequest, HybridSearchResponse } from '../hybrid.js';

interface SearchSourcesDeps {
  /** The hybrid search over the service's backends, built once (it checks the embedder once). */
  search: (request: HybridSearchRequest) => Promise<HybridSearchResponse>;
  logger: Logger;
}

/** SearchSources: the caller's org's sources that best match the query, both legs fused. */
export async function searchSources(
  deps: SearchSourcesDeps,
  req: searchV1.SearchSourcesRequest,
  ctx: CallContext,
): Promise<searchV1.SearchSourcesResponse> {
  const request = { ...toHybridRequest(req, ctx.identity.orgId), requestId: ctx.identity.requestId };
  try {
    return toProto(await deps.search(request));
  } catch (error) {
    throw searchFailure(error, deps.logger, ctx.identity.requestId);
  }
}

function toProto(r: HybridSearchResponse): searchV1.SearchSourcesResponse {
  return {
    query: r.query,
    queryType: queryTypeToProto(r.queryType),
    mode: searchModeToProto(r.mode),
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
      url: sourceUrl(x.sourceTable as SourceTableName, x.sourceId, x.page),
      page: x.page,
      planId: x.planId,
      tags: x.tags,
      createdAt: x.createdAt ? new Date(x.createdAt) : undefined,
      instructionFlags: x.instructionFlags,
    })),
  };
}
