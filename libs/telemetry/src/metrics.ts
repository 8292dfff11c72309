import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export type { Counter, Gauge, Histogram, Registry };

export interface Metrics {
  /** The service's own registry (never prom-client's global one, so tests and services don't collide). */
  registry: Registry;
  /** `collect` runs at each scrape before the value is read (e.g. to refresh it from a query). */
  counter<L extends string = string>(
    name: string,
    help: string,
    labelNames?: readonly L[],
    collect?: Collect,
  ): Counter<L>;
  /** `buckets` in the metric's unit; prom-client's defaults suit durations in seconds. */
  histogram<L extends string = string>(
    name: string,
    help: string,
    labelNames?: readonly L[],
    buckets?: number[],
  ): Histogram<L>;
  /** `collect` runs at each scrape before the value is read (e.g. to refresh it from a query). */
  gauge<L extends string = string>(name: string, help: string, labelNames?: readonly L[], collect?: Collect): Gauge<L>;
}

/** A scrape-time refresh of a metric's value. */
export type Collect = () => void | Promise<void>;

/**
 * A Prometheus registry for one service, with the default process metrics (CPU, memory, event
 * loop lag, GC) and a `service` label on every series, plus shorthands that register there.
 * `processMetrics: false` for a service hosted inside another one's process (`quarry start`):
 * the host already reports the process, and its /metrics appends this registry's text.
 */
export function createMetrics({
  service,
  processMetrics = true,
}: {
  service: string;
  processMetrics?: boolean;
}): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  if (processMetrics) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    counter: (name, help, labelNames = [], collect) =>
      new Counter({ name, help, labelNames, registers, ...(collect ? { collect } : {}) }),
    histogram: (name, help, labelNames = [], buckets) =>
      new Histogram({ name, help, labelNames, registers, ...(buckets ? { buckets } : {}) }),
    gauge: (name, help, labelNames = [], collect) =>
      new Gauge({ name, help, labelNames, registers, ...(collect ? { collect } : {}) }),
  };
}

/** The text exposition for a `/metrics` route: `reply.type(contentType).send(body)`. */
export async function metricsText(
  registry: Registry,
  ...alsoExpose: Registry[]
): Promise<{ contentType: string; body: string }> {
  const bodies = await Promise.all([registry, ...alsoExpose].map((r) => r.metrics()));
  return { contentType: registry.contentType, body: bodies.join('\n') };
}

export interface MetricsServer {
  /** The bound port (useful when asked for port 0). */
  port: number;
  close(): Promise<void>;
}

/**
 * A bare HTTP server answering `GET /metrics`, for services that speak only gRPC and so have no
 * HTTP app to mount a route on. Everything else is 404.
 */
export async function startMetricsServer(options: {
  registry: Registry;
  /** Registries of other services in the same process, appended (see createMetrics' processMetrics). */
  alsoExpose?: readonly Registry[];
  host: string;
  port: number;
}): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not Found\n');
      return;
    }
    metricsText(options.registry, ...(options.alsoExpose ?? [])).then(
      ({ contentType, body }) =>
        res.writeHead(200, { 'content-type': contentType }).end(req.method === 'HEAD' ? undefined : body),
      () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Metrics collection failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
