import { env, loadConfig, z } from '@quarry/config';
import { createLogger, startTelemetry } from '@quarry/telemetry';
import closeWithGrace from 'close-with-grace';

// The indexer alone (its container). Telemetry starts before anything loads pg or gRPC (the
// search library does, so even the full config schema is imported after it); the exporter
// endpoint is validated on its own first.
const { OTEL_EXPORTER_OTLP_ENDPOINT } = loadConfig(z.object({ OTEL_EXPORTER_OTLP_ENDPOINT: env.url().optional() }));
const telemetry = startTelemetry({ service: 'indexer', otlpEndpoint: OTEL_EXPORTER_OTLP_ENDPOINT });
const { loadIndexerConfig } = await import('./config.js');
const { runIndexer } = await import('./runtime.js');
const config = loadIndexerConfig();
const logger = createLogger({ service: 'indexer', level: config.LOG_LEVEL });
const indexer = await runIndexer(config, logger).catch(async (err: unknown) => {
  logger.fatal({ err }, 'indexer failed to start');
  await telemetry.shutdown();
  process.exit(1);
});
logger.info(
  { metricsPort: indexer.metricsPort, batchSize: config.INDEXER_BATCH_SIZE, ...indexer.describe },
  'indexer consuming content events',
);

closeWithGrace({ delay: 15_000, logger }, async ({ err }) => {
  if (err) logger.error({ err }, 'shutting down after an error');
  await indexer.close();
  await telemetry.shutdown();
});
