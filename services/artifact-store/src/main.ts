import { grpcServiceOptionsFrom } from '@quarry/config';
import { runService } from '@quarry/telemetry';
import { loadArtifactStoreConfig, urlImportOptionsFrom } from './config.js';

// The artifact store as its own process (its container): gRPC on HOST:PORT, /metrics on HOST:METRICS_PORT.
await runService({
  service: 'artifact-store',
  loadConfig: loadArtifactStoreConfig,
  start: async (config, logger) =>
    (await import('./runtime.js')).startArtifactStore({
      logger,
      ...grpcServiceOptionsFrom(config),
      databaseUrl: config.DATABASE_URL,
      planEngineAddress: config.PLAN_ENGINE_ADDRESS,
      readBudgetBytes: config.READ_BUDGET_BYTES,
      documentMaxBytes: config.DOCUMENT_MAX_BYTES,
      urlImports: urlImportOptionsFrom(config),
      storageQuotas: { storageBytes: config.QUOTA_STORAGE_BYTES, artifacts: config.QUOTA_ARTIFACTS },
    }),
});
