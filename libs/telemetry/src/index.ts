// @quarry/telemetry: how every Quarry process reports on itself. Logs (pino, never a token),
// traces (OpenTelemetry through fastify, gRPC and PostgreSQL) and Prometheus metrics, and the
// one shape every service starts with (ServiceOptions → RunningService, runService for main.ts).
//
// Tracing gRPC and pg means patching those modules as they load, which under ESM only works if
// telemetry starts before they are first imported. Every service's main.ts therefore reads:
//
//   await runService({
//     service: 'plan-engine',
//     loadConfig: loadPlanEngineConfig,
//     start: async (config, logger) => (await import('./runtime.js')).startPlanEngine({ ... }),
//   });
//
// main.ts must not statically import anything that reaches @grpc/grpc-js or pg (static imports
// run before its first line); startTelemetry() throws if they were loaded too early.
export { createLogger, type Logger, type LoggerOptions } from './logger.js';
export { REDACTED, scrubSecrets } from './scrub.js';
export { withConsumerSpans, type ConsumedMessage } from './consumer-spans.js';
export {
  fastifyOtel,
  InMemorySpanExporter,
  startTelemetry,
  telemetryRunning,
  type Telemetry,
  type TelemetryOptions,
} from './tracing.js';
export {
  createMetrics,
  metricsText,
  startMetricsServer,
  type Collect,
  type Counter,
  type Gauge,
  type Histogram,
  type Metrics,
  type MetricsServer,
  type Registry,
} from './metrics.js';
export { createQuotaMetrics, type QuotaMetrics } from './quota-metrics.js';
export { runService, serveMetrics, serviceMetrics, type RunningService, type ServiceOptions } from './service.js';
