import { grpcServiceOptionsFrom } from '@quarry/config';
import { runService } from '@quarry/telemetry';
import { extractionModelsFrom, loadExtractionConfig } from './config.js';

// The extraction service as its own process (its container): gRPC on HOST:PORT, /metrics on HOST:METRICS_PORT.
await runService({
  service: 'extraction',
  loadConfig: loadExtractionConfig,
  start: async (config, logger) => {
    const models = extractionModelsFrom(config);
    logger.info(
      { provider: models.provider, serverProviders: Object.keys(models.providers), sampling: models.samplingEnabled },
      'extraction models',
    );
    return (await import('./runtime.js')).startExtraction({
      ...models,
      logger,
      ...grpcServiceOptionsFrom(config),
      artifactStoreAddress: config.ARTIFACT_STORE_ADDRESS,
      databaseUrl: config.DATABASE_URL,
    });
  },
});
