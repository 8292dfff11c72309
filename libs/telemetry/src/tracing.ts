import { createRequire, register } from 'node:module';
import { sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { context, propagation, trace } from '@opentelemetry/api';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { core, NodeSDK, resources, tracing } from '@opentelemetry/sdk-node';

export interface TelemetryOptions {
  /** `service.name` of every span. */
  service: string;
  /** OTLP/HTTP base URL (what OTEL_EXPORTER_OTLP_ENDPOINT holds); spans go to `<endpoint>/v1/traces`. */
  otlpEndpoint?: string;
  /** Defaults: parent-based always-on when exporting, always-off otherwise. */
  sampler?: tracing.Sampler;
  /** Tests: hand every ended span to this exporter (e.g. `InMemorySpanExporter`); `flush()` before asserting. */
  spanExporter?: tracing.SpanExporter;
  /**
   * `false` skips the gRPC and PostgreSQL instrumentation and its module loader hook, leaving
   * tracing and propagation: for in-process tests (Jest forbids `module.register`).
   */
  instrument?: boolean;
}

export interface Telemetry {
  /** Export every ended span now (a short-lived command before exit; tests before asserting). */
  flush(): Promise<void>;
  /** Flush pending spans, unpatch instrumented modules, and release the global providers. */
  shutdown(): Promise<void>;
}

/** Collects ended spans in memory: pass as `spanExporter` in tests that assert on traces. */
export const InMemorySpanExporter = tracing.InMemorySpanExporter;
export type InMemorySpanExporter = tracing.InMemorySpanExporter;

let running = false;
let loaderHookRegistered = false;
const requireHere = createRequire(import.meta.url);

/**
 * A module loaded before its instrumentation is never traced, silently. That mistake is easy
 * (one static import in main.ts) and invisible until a trace is missing, so refuse to start.
 */
function assertNotLoaded(modules: string[]): void {
  const paths = Object.keys(requireHere.cache);
  const loaded = modules.filter((name) => {
    const dir = `${sep}node_modules${sep}${name.split('/').join(sep)}${sep}`;
    return paths.some((path) => path.includes(dir));
  });
  if (loaded.length > 0) {
    throw new Error(
      `startTelemetry() must run before ${loaded.join(', ')} ${loaded.length > 1 ? 'are' : 'is'} imported, or ` +
        'it cannot be instrumented: call startTelemetry() first in main.ts, then import() the service.',
    );
  }
}

/**
 * ESM namespaces are immutable, so an instrumentation can only patch an `import`ed module
 * through import-in-the-middle's loader hook, which must be in place before that module is
 * first imported. It must be the very copy of import-in-the-middle the instrumentations use
 * (they meet through its module state), hence resolving it through an instrumentation package.
 * Only the instrumented packages are intercepted, so every other import stays untouched.
 */
function registerLoaderHook(modules: string[]): void {
  if (loaderHookRegistered) return;
  loaderHookRegistered = true;
  const fromInstrumentation = createRequire(requireHere.resolve('@opentelemetry/instrumentation-grpc'));
  const fromIitm = createRequire(fromInstrumentation.resolve('@opentelemetry/instrumentation'));
  const hook = pathToFileURL(fromIitm.resolve('import-in-the-middle/hook.mjs'));
  register(hook, { data: { include: modules } });
}

function spanProcessor(options: TelemetryOptions): tracing.SpanProcessor {
  if (options.spanExporter) return new tracing.SimpleSpanProcessor(options.spanExporter);
  if (options.otlpEndpoint) {
    const url = new URL(
      'v1/traces',
      options.otlpEndpoint.endsWith('/') ? options.otlpEndpoint : `${options.otlpEndpoint}/`,
    );
    return new tracing.BatchSpanProcessor(new OTLPTraceExporter({ url: url.href }));
  }
  // Nothing to export to: spans are never recorded (see sampler), yet every span still gets
  // ids, so trace context propagates across services and log lines carry trace ids.
  return new tracing.NoopSpanProcessor();
}

function defaultSampler(exporting: boolean): tracing.Sampler {
  return exporting
    ? new tracing.ParentBasedSampler({ root: new tracing.AlwaysOnSampler() })
    : new tracing.AlwaysOffSampler();
}

/**
 * Start OpenTelemetry for this process: W3C trace context, gRPC and PostgreSQL instrumentation
 * (fastify is traced by the `fastifyOtel()` plugin), and OTLP/HTTP export when an endpoint is
 * given. Instrumentation patches modules as they are loaded, so this must run before
 * `@grpc/grpc-js` or `pg` is first imported (it throws otherwise): call it at the top of
 * `main.ts`, then load the rest of the service with a dynamic `import()`, because static
 * imports are all evaluated before the first line of `main.ts` runs. Once per process.
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  if (running) throw new Error('Telemetry is already started in this process');
  // Created disabled so that nothing is hooked until the checks pass; `sdk.start()` enables them.
  const instrumentations =
    options.instrument === false
      ? []
      : [
          new GrpcInstrumentation({ enabled: false }),
          // Only SQL under a span (a request, an rpc, a consumer batch) is traced: background
          // polling, sweeps and compaction would otherwise make hundreds of root traces a minute.
          new PgInstrumentation({ enabled: false, requireParentSpan: true }),
        ];
  const modules = instrumentations.flatMap((i) => i.getModuleDefinitions().map((d) => d.name));
  assertNotLoaded(modules);
  running = true;
  if (modules.length > 0) registerLoaderHook(modules);

  const exporting = Boolean(options.spanExporter ?? options.otlpEndpoint);
  const processor = spanProcessor(options);
  const sdk = new NodeSDK({
    serviceName: options.service,
    // Not the process detector: it exports the full command line, which may hold a secret.
    resourceDetectors: [resources.envDetector, resources.hostDetector],
    instrumentations,
    textMapPropagator: new core.W3CTraceContextPropagator(),
    sampler: options.sampler ?? defaultSampler(exporting),
    spanProcessors: [processor],
    // Empty lists keep NodeSDK from defaulting metrics and logs to OTLP exporters of their own;
    // metrics are Prometheus (see metrics.ts), logs are pino on stdout.
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();

  return {
    flush: () => processor.forceFlush(),
    async shutdown() {
      for (const instrumentation of instrumentations) instrumentation.disable();
      await sdk.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
      running = false;
    },
  };
}

/**
 * Whether `startTelemetry` runs in this process. Without it there is no SDK: spans would be
 * no-ops, so a caller can skip the work of opening them (the gateway's per-request spans).
 */
export function telemetryRunning(): boolean {
  return running;
}

/** Paths probed by orchestrators and scrapers: a span each would drown the real traffic. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The @fastify/otel plugin: one span per HTTP request (continuing an incoming `traceparent`),
 * with child spans for hooks and the handler. Register it before any route, and await it:
 * `await app.register(fastifyOtel())`. Probe paths are not traced.
 */
export function fastifyOtel(): ReturnType<FastifyOtelInstrumentation['plugin']> {
  const instrumentation = new FastifyOtelInstrumentation({
    ignorePaths: ({ url }) => UNTRACED_PATHS.has(url.split('?', 1)[0] ?? url),
  });
  return instrumentation.plugin();
}
