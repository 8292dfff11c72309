import { type searchV1, type SourceTableName, sourceUrl } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import type { Logger } from 'pino';
import { toHybridRequest } from '../core/request.js';
import { searchFailure } from '../engine-failures.js';
import { flagsLine } from '../enums.js';
import type { HybridSearchRequest, HybridSearchResponse } from '../hybrid.js';

interface SearchDeps {
  search: (request: HybridSearchRequest) => Promise<HybridSearchResponse>;
  logger: Logger;
}

/**
 * Search: the research contract of ChatGPT's deep research and company knowledge (one query in,
 * `{results: [{id, title, url}]}` out). The same hybrid search as search_sources with its defaults
 * (both legs, 10 results, no filter), one result per stored item, best first; fetch reads an id.
 */
export async function search(
  deps: SearchDeps,
  req: searchV1.SearchRequest,
  ctx: CallContext,
): Promise<searchV1.SearchResponse> {
  const request = {
    ...toHybridRequest({ query: req.query, tags: [] }, ctx.identity.orgId),
    requestId: ctx.identity.requestId,
  };
  let found: HybridSearchResponse;
  try {
    found = await deps.search(request);
  } catch (error) {
    throw searchFailure(error, deps.logger, ctx.identity.requestId);
  }
  // The fusion already gives one result per stored item; an item is still never listed twice.
  const seen = new Set<string>();
  const results = found.results.filter((r) => !seen.has(r.sourceId) && seen.add(r.sourceId));
  return {
    results: results.map((r) => ({
      id: r.sourceId,
      title: r.title,
      url: sourceUrl(r.sourceTable as SourceTableName, r.sourceId, r.page),
      instructionFlags: flagsLine(r.instructionFlags),
    })),
  };
}
