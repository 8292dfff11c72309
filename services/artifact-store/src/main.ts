import { createLogger, startTelemetry } from '@quarry/telemetry';
import closeWithGrace from 'close-with-grace';
import { loadArtifactStoreConfig } from './config.js';

// The artifact store alone (its container): config, telemetry before grpc/pg load, listen.
const config = loadArtifactStoreConfig();
const telemetry = startTelemetry({ service: 'artifact-store', otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
const { startArtifactStore } = await import('./runtime.js');
const logger = createLogger({ service: 'artifact-store', level: config.LOG_LEVEL });
const store = await startArtifactStore({
  databaseUrl: config.DATABASE_URL,
  identityKey: config.QUARRY_IDENTITY_KEY,
  planEngineAddress: config.PLAN_ENGINE_ADDRESS,
  logger,
  host: config.HOST,
  port: config.PORT,
});
logger.info({ address: store.address }, 'artifact store listening');

closeWithGrace({ delay: 15_000, logger }, async ({ err }) => {
  if (err) logger.error({ err }, 'shutting down after an error');
  await store.close();
  await telemetry.shutdown();
});
