// @quarry/telemetry: how every Quarry process reports on itself (ARCHITECTURE.md §8).
// Logs (pino, never a token), traces (OpenTelemetry through fastify, gRPC and PostgreSQL) and
// Prometheus metrics.
//
// Tracing gRPC and pg means patching those modules as they load, which under ESM only works if
// telemetry starts before they are first imported. Every service's main.ts therefore reads:
//
//   import { startTelemetry } from '@quarry/telemetry';
//   const telemetry = startTelemetry({ service: 'plan', otlpEndpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined });
//   const { run } = await import('./run.js'); // everything else, loaded after instrumentation
//   await run({ telemetry });
//
// main.ts must not statically import anything that reaches @grpc/grpc-js or pg (static imports
// run before its first line); startTelemetry() throws if they were loaded too early.
export { createLogger, type Logger, type LoggerOptions } from './logger.js';
export { REDACTED, scrubSecrets } from './scrub.js';
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
