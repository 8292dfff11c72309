import { ConfigError, explainBindError } from '@quarry/config';
import closeWithGrace from 'close-with-grace';
import { createLogger, type Logger } from './logger.js';
import { createMetrics, startMetricsServer, type Metrics, type Registry } from './metrics.js';
import { startTelemetry } from './tracing.js';

/** What every `start<Service>(options)` takes besides the service's own dependencies. */
export interface ServiceOptions {
  logger: Logger;
  /** The interface the service binds: its gRPC or HTTP port, and its /metrics. */
  host: string;
  /**
   * Serve the service's Prometheus /metrics on `host:metricsPort` (0 = any free port): the
   * service runs as its own process. Unset, nothing listens for scrapes: the process hosting
   * the service exposes `metrics` itself (`quarry start`: the gateway's /metrics appends it).
   */
  metricsPort?: number;
  /** Register the service's metrics here; default: a registry of its own (with process metrics when it serves them). */
  metrics?: Metrics;
}

/** What every `start<Service>(options)` returns: where it listens, and how to stop it. */
export interface RunningService {
  /** `host:port` to call (gRPC, or the gateway's HTTP); absent when the service answers no calls (the indexer). */
  address?: string;
  port?: number;
  /** The bound /metrics port, when the service serves its own. */
  metricsPort?: number;
  /** Stop taking calls, drain for up to `graceMs`, release what it holds, stop serving metrics last. */
  close(graceMs?: number): Promise<void>;
}

/** The registry a service registers in: the one it was given, or its own (process metrics only if it serves them). */
export function serviceMetrics(service: string, options: Pick<ServiceOptions, 'metrics' | 'metricsPort'>): Metrics {
  return options.metrics ?? createMetrics({ service, processMetrics: options.metricsPort !== undefined });
}

export interface ServedMetrics {
  /** The bound port; undefined when nothing is served. */
  port: number | undefined;
  close(): Promise<void>;
}

/**
 * `GET /metrics` for `metrics` (and `alsoExpose`) on `host:port`, or nothing when `port` is
 * undefined. A busy port is a ConfigError naming METRICS_PORT.
 */
export async function serveMetrics(
  host: string,
  port: number | undefined,
  metrics: Metrics,
  alsoExpose: readonly Registry[] = [],
): Promise<ServedMetrics> {
  if (port === undefined) return { port: undefined, close: async () => undefined };
  try {
    return await startMetricsServer({ registry: metrics.registry, alsoExpose, host, port });
  } catch (error) {
    throw explainBindError('METRICS_PORT', host, port, error);
  }
}

/** The config fields runService reads itself (every service has them, see processFields in @quarry/config). */
interface MainConfig {
  readonly LOG_LEVEL: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
}

export interface ServiceMain<C extends MainConfig> {
  /** `service.name` of its traces and the `service` of its log lines, e.g. `plan-engine`. */
  service: string;
  /** Reads and validates the environment. */
  loadConfig: () => C;
  /**
   * Starts the service. Runs after telemetry has started, so it must `import()` the service's
   * runtime itself: a static import of anything that loads gRPC or pg would escape tracing.
   */
  start: (config: C, logger: Logger) => Promise<RunningService>;
  /** How long a shutdown may take before the process exits anyway. Default 15 s. */
  shutdownMs?: number;
}

/**
 * A service's `main.ts`: read the config, start telemetry, start the service, and close it on
 * SIGTERM/SIGINT. A configuration error (a bad variable, a busy port) stops the process with its
 * message on stderr and exit code 1, not a stack trace; any other failure to start is logged as
 * fatal, exit code 1.
 */
export async function runService<C extends MainConfig>(main: ServiceMain<C>): Promise<void> {
  const { service } = main;
  const refuse = (error: ConfigError): never => {
    process.stderr.write(`${service}: ${error.message}\n`);
    process.exit(1);
  };
  let config: C;
  try {
    config = main.loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) refuse(error);
    throw error;
  }
  const telemetry = startTelemetry({ service, otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const logger = createLogger({ service, level: config.LOG_LEVEL });
  let running: RunningService;
  try {
    running = await main.start(config, logger);
  } catch (error) {
    await telemetry.shutdown();
    if (error instanceof ConfigError) refuse(error);
    logger.fatal({ err: error }, `${service} failed to start`);
    process.exit(1);
  }
  logger.info({ address: running.address, metricsPort: running.metricsPort }, `${service} started`);
  closeWithGrace({ delay: main.shutdownMs ?? 15_000, logger }, async ({ err }) => {
    if (err) logger.error({ err }, 'shutting down after an error');
    await running.close();
    await telemetry.shutdown();
  });
}
