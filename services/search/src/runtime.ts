import type { ServiceTokenIssuer } from '@quarry/config';
import { searchV1 } from '@quarry/contracts';
import { buildServiceServer, listenService, type ListeningService, type ServiceTarget } from '@quarry/grpc';
import { openSearchBackends, type SearchBackends, type SearchBackendsConfig } from '@quarry/search-index';
import { serviceMetrics, type ServiceOptions } from '@quarry/telemetry';
import { createSearchService } from './service.js';
import { createStoredSourcesClient } from './stored-sources.js';

/** Where the indexes come from: shared by the caller, or opened from the configuration. */
type SearchIndexes =
  | {
      /**
       * Opened by the caller and shared with an in-process indexer (`quarry start`: embedded
       * LanceDB is a single-writer directory); used as they are, never closed here.
       */
      backends: Pick<SearchBackends, 'bm25' | 'vectors' | 'embedder'>;
      search?: never;
    }
  | {
      backends?: never;
      /** Which indexes to open (its own process); closed with the service. */
      search: SearchBackendsConfig;
      /** Embedded LanceDB: how soon writes of the separate indexer process become visible. Default 1 s. */
      readConsistencyMs?: number;
    };

export type SearchOptions = ServiceOptions &
  SearchIndexes & {
    identityKey: string;
    /** With a semantic embedder, how long the slower leg may take (SEARCH_LEG_TIMEOUT). Default 2 s. */
    legTimeoutMs?: number;
    /** Also accept service accounts' tokens from this issuer (QUARRY_SERVICE_TOKEN_ISSUER). */
    serviceTokens?: ServiceTokenIssuer;
    /** gRPC port (0 = any free port). */
    port: number;
    /**
     * host:port of the artifact store (or the store in this process), asked which of the sources found are still stored (a
     * function is read at the first search). Only tests of the engines alone leave it out.
     */
    artifactStoreAddress?: ServiceTarget | (() => ServiceTarget);
  };

export type SearchRuntime = ListeningService;

/**
 * Builds the server over the indexes and listens. Used by `main.ts` (its own process: opens its
 * own indexes, /metrics on METRICS_PORT) and by `quarry start` (indexes shared with the indexer).
 */
export async function startSearch(options: SearchOptions): Promise<SearchRuntime> {
  const { logger } = options;
  let backends: Pick<SearchBackends, 'bm25' | 'vectors' | 'embedder'>;
  let release = async () => undefined as void;
  if (options.search) {
    const opened = await openSearchBackends(options.search, {
      readConsistencyIntervalSeconds: (options.readConsistencyMs ?? 1_000) / 1000,
    });
    logger.info(opened.describe, 'search indexes opened');
    backends = opened;
    release = () => opened.close();
  } else {
    backends = options.backends;
  }
  const check = options.artifactStoreAddress
    ? createStoredSourcesClient({ address: options.artifactStoreAddress, identityKey: options.identityKey })
    : undefined;
  const server = buildServiceServer({
    definition: searchV1.SearchServiceService,
    implementation: createSearchService({
      backends,
      logger,
      legTimeoutMs: options.legTimeoutMs,
      ...(check ? { stored: check.stored } : {}),
    }),
    identityKey: options.identityKey,
    serviceTokens: options.serviceTokens,
    logger,
  });
  const closeIndexes = release;
  release = async () => {
    check?.close();
    await closeIndexes();
  };
  return listenService(server, { ...options, metrics: serviceMetrics('search', options), release });
}
