import { createLogger, startTelemetry } from '@quarry/telemetry';
import closeWithGrace from 'close-with-grace';
import { loadPlanEngineConfig } from './config.js';

// The plan engine alone (its container): config, telemetry before grpc/pg load, listen.
const config = loadPlanEngineConfig();
const telemetry = startTelemetry({ service: 'plan-engine', otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
const { startPlanEngine } = await import('./runtime.js');
const logger = createLogger({ service: 'plan-engine', level: config.LOG_LEVEL });
const engine = await startPlanEngine({
  databaseUrl: config.DATABASE_URL,
  identityKey: config.QUARRY_IDENTITY_KEY,
  logger,
  host: config.HOST,
  port: config.PORT,
  stallThresholdMs: config.QUARRY_STALL_THRESHOLD,
  artifactStoreAddress: config.ARTIFACT_STORE_ADDRESS,
});
logger.info({ address: engine.address }, 'plan engine listening');

closeWithGrace({ delay: 15_000, logger }, async ({ err }) => {
  if (err) logger.error({ err }, 'shutting down after an error');
  await engine.close();
  await telemetry.shutdown();
});
