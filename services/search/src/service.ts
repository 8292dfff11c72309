import type { searchV1 } from '@quarry/contracts';
import { handlersWith } from '@quarry/grpc';
import type { Logger } from 'pino';
import type { SearchBackends } from '@quarry/search-index';
import { tagged } from './engine-failures.js';
import { search } from './handlers/search.js';
import { searchSources } from './handlers/search-sources.js';
import { buildHybridSearch } from './hybrid.js';

export interface SearchServiceDeps {
  /** Opened and closed by the caller (one set may be shared with an in-process indexer). */
  backends: Pick<SearchBackends, 'bm25' | 'vectors' | 'embedder'>;
  logger: Logger;
}

/**
 * The SearchService rpcs, one handler each (handlers/). The org comes from the caller's verified
 * identity and nothing else, and goes into both engines' filters (see buildHybridSearch). Engine
 * failures become SEARCH_UNAVAILABLE naming the leg; their details stay in this service's log.
 */
export function createSearchService(deps: SearchServiceDeps): searchV1.SearchServiceServer {
  const hybrid = buildHybridSearch(tagged(deps.backends));
  return handlersWith({ search: hybrid, logger: deps.logger }, { searchSources, search });
}
