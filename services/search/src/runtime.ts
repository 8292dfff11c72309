import { createIdentityVerifier, listenService } from '@quarry/grpc';
import type { Logger } from 'pino';
import type { SearchBackends } from '@quarry/search-index';
import { buildServer } from './server.js';

export interface SearchRuntimeOptions {
  /**
   * Opened and closed by the caller, not here: `quarry start` shares one set between this
   * service and the indexer in one process; `main.ts` opens its own.
   */
  backends: Pick<SearchBackends, 'bm25' | 'vectors' | 'embedder'>;
  identityKey: string;
  logger: Logger;
  host: string;
  port: number;
}

/** Builds the server over the given backends and listens. Used by `main.ts` and by `quarry start`. */
export async function startSearch(options: SearchRuntimeOptions) {
  const server = buildServer({
    backends: options.backends,
    logger: options.logger,
    verifier: createIdentityVerifier({ key: options.identityKey }),
  });
  // The backends stay open: their owner (main.ts or quarry start) closes them.
  return listenService(server, options.host, options.port);
}

export type SearchRuntime = Awaited<ReturnType<typeof startSearch>>;
