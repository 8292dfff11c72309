import { serviceTokenIssuerFrom } from '@quarry/config';
import { runService } from '@quarry/telemetry';
import { loadArtifactStoreConfig } from './config.js';

// The artifact store as its own process (its container): gRPC on HOST:PORT, /metrics on HOST:METRICS_PORT.
await runService({
  service: 'artifact-store',
  loadConfig: loadArtifactStoreConfig,
  start: async (config, logger) =>
    (await import('./runtime.js')).startArtifactStore({
      logger,
      host: config.HOST,
      port: config.PORT,
      metricsPort: config.METRICS_PORT,
      databaseUrl: config.DATABASE_URL,
      identityKey: config.QUARRY_IDENTITY_KEY,
      serviceTokens: serviceTokenIssuerFrom(config),
      planEngineAddress: config.PLAN_ENGINE_ADDRESS,
      readBudgetBytes: config.READ_BUDGET_BYTES,
    }),
});
