import { createIdentityVerifier } from '@quarry/grpc';
import type { Logger } from 'pino';
import type { SearchBackends } from './backends.js';
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
  const server = buildServer({ backends: options.backends, logger: options.logger, verifier: createIdentityVerifier({ key: options.identityKey }) });
  const port = await server.listen(options.host, options.port);
  return {
    port,
    address: `${options.host}:${port}`,
    serviceNames: server.serviceNames,
    /** NOT_SERVING first (probes and balancers stop sending), drain, then release. The backends stay open. */
    async close(graceMs = 10_000) {
      await server.shutdown(graceMs);
    },
  };
}

export type SearchRuntime = Awaited<ReturnType<typeof startSearch>>;
