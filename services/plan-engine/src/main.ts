import { createLogger, startTelemetry } from '@quarry/telemetry';
import closeWithGrace from 'close-with-grace';
import { loadPlanEngineConfig } from './config.js';

// The plan engine alone (its container): config, telemetry before grpc/pg load, listen (gRPC on
// PORT, Prometheus /metrics on METRICS_PORT).
const config = loadPlanEngineConfig();
const telemetry = startTelemetry({ service: 'plan-engine', otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
const { runPlanEngine } = await import('./runtime.js');
const logger = createLogger({ service: 'plan-engine', level: config.LOG_LEVEL });
const engine = await runPlanEngine(config, logger);
logger.info({ address: engine.address, metricsPort: engine.metricsPort }, 'plan engine listening');

closeWithGrace({ delay: 15_000, logger }, async ({ err }) => {
  if (err) logger.error({ err }, 'shutting down after an error');
  await engine.close();
  await telemetry.shutdown();
});
