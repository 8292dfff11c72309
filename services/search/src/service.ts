import type { searchV1 } from '@quarry/contracts';
import { handlersWith } from '@quarry/grpc';
import type { Logger } from 'pino';
import type { SearchBackends } from '@quarry/search-index';
import { tagged } from './engine-failures.js';
import { search } from './handlers/search.js';
import { searchSources } from './handlers/search-sources.js';
import { buildHybridSearch } from './hybrid.js';
import type { StoredSources } from './stored-sources.js';

export interface SearchServiceDeps {
  /** Opened and closed by the caller (one set may be shared with an in-process indexer). */
  backends: Pick<SearchBackends, 'bm25' | 'vectors' | 'embedder'>;
  /**
   * Which sources are still stored (the artifact store's ExistingSources). Every running service
   * has it; without it, a source deleted since the indexer last caught up can still be listed.
   */
  stored?: StoredSources;
  /** With a semantic embedder, how long the slower leg may take (see buildHybridSearch). */
  legTimeoutMs?: number | undefined;
  logger: Logger;
}

/**
 * The SearchService rpcs, one handler each (handlers/). The org comes from the caller's verified
 * identity and nothing else, and goes into both engines' filters (see buildHybridSearch). Engine
 * failures become SEARCH_UNAVAILABLE naming the leg; their details stay in this service's log.
 * Hits of sources no longer stored are dropped before ranking (ADR 0047).
 */
export function createSearchService(deps: SearchServiceDeps): searchV1.SearchServiceServer {
  const hybrid = buildHybridSearch({ ...tagged(deps.backends, deps.stored), legTimeoutMs: deps.legTimeoutMs });
  return handlersWith({ search: hybrid, logger: deps.logger }, { searchSources, search });
}
