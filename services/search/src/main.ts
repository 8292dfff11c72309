import { grpcServiceOptionsFrom } from '@quarry/config';
import { runService } from '@quarry/telemetry';
import { loadSearchConfig } from './config.js';

// The search service as its own process (its container): gRPC on HOST:PORT, /metrics on
// HOST:METRICS_PORT. The indexer is then another process writing the same indexes, so reads
// of embedded LanceDB look for its writes every SEARCH_READ_CONSISTENCY.
await runService({
  service: 'search',
  loadConfig: loadSearchConfig,
  start: async (config, logger) =>
    (await import('./runtime.js')).startSearch({
      logger,
      ...grpcServiceOptionsFrom(config),
      search: config,
      readConsistencyMs: config.SEARCH_READ_CONSISTENCY,
      legTimeoutMs: config.SEARCH_LEG_TIMEOUT,
      artifactStoreAddress: config.ARTIFACT_STORE_ADDRESS,
    }),
});
