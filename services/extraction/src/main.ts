import { createLogger, startTelemetry } from '@quarry/telemetry';
import closeWithGrace from 'close-with-grace';
import { extractionModelsFrom, loadExtractionConfig } from './config.js';

// The extraction service alone (its container): config, telemetry before grpc loads, listen.
const config = loadExtractionConfig();
const telemetry = startTelemetry({ service: 'extraction', otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
const { startExtraction } = await import('./runtime.js');
const logger = createLogger({ service: 'extraction', level: config.LOG_LEVEL });
const models = extractionModelsFrom(config);
const service = await startExtraction({
  identityKey: config.QUARRY_IDENTITY_KEY,
  artifactStoreAddress: config.ARTIFACT_STORE_ADDRESS,
  ...models,
  logger,
  host: config.HOST,
  port: config.PORT,
});
logger.info(
  {
    address: service.address,
    provider: config.EXTRACTION_PROVIDER,
    serverProviders: Object.keys(models.providers),
    sampling: config.EXTRACTION_SAMPLING,
  },
  'extraction service listening',
);

closeWithGrace({ delay: 15_000, logger }, async ({ err }) => {
  if (err) logger.error({ err }, 'shutting down after an error');
  await service.close();
  await telemetry.shutdown();
});
