import { ConfigError, explainBindError } from '@quarry/config';
import { identityV1, toolCatalogue } from '@quarry/contracts';
import { serveMetrics, type RunningService, type ServiceOptions } from '@quarry/telemetry';
import { createGatewayRuntime, type GatewayRuntimeOptions } from './runtime.js';
import { buildServer } from './server.js';

export interface GatewayOptions extends GatewayRuntimeOptions, Pick<ServiceOptions, 'metricsPort'> {}

export interface Gateway extends RunningService {
  address: string;
  port: number;
  /** The MCP endpoint: `http://host:port/mcp`. */
  url: string;
  /** Stop advertising readiness (load balancers drain the gateway) before close(). */
  beginDrain(): void;
}

/**
 * Connects the gateway's runtime, builds its HTTP server and listens on config.HOST:PORT. With
 * `metricsPort` (its own process: METRICS_PORT) /metrics is served there, on HOST, and not on
 * the public port; without it (`quarry start`, one process on loopback) /metrics is a route of
 * the HTTP server, with the registries of `alsoExpose` appended. A busy port is a ConfigError
 * naming PORT or METRICS_PORT, and whatever had started is closed again.
 */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { HOST: host, PORT: port } = options.config;
  assertEveryToolRouted(options);
  const runtime = await createGatewayRuntime(options);
  const ownMetricsPort = options.metricsPort !== undefined;
  let served: Awaited<ReturnType<typeof serveMetrics>> | undefined;
  let app: Awaited<ReturnType<typeof buildServer>> | undefined;
  try {
    served = await serveMetrics(host, options.metricsPort, runtime.metrics, options.alsoExpose);
    app = await buildServer(ownMetricsPort ? { ...runtime.deps, metricsText: undefined } : runtime.deps);
    await app.listen({ host, port }).catch((error: unknown) => {
      throw explainBindError('PORT', host, port, error);
    });
  } catch (error) {
    await app?.close();
    await served?.close();
    await runtime.close();
    throw error;
  }
  const address = app.server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  const [server, metricsServer] = [app, served];
  return {
    address: `${hostInUrl}:${bound}`,
    port: bound,
    url: `http://${hostInUrl}:${bound}/mcp`,
    metricsPort: served.port,
    beginDrain: runtime.beginDrain,
    async close() {
      runtime.beginDrain();
      await server.close();
      await runtime.close();
      await metricsServer.close();
    },
  };
}

/** Every tool's service must have an address (QUARRY_SERVICES) or run in-process: said before anything starts. */
function assertEveryToolRouted(options: GatewayOptions): void {
  const routed = new Set([
    `${identityV1.protobufPackage}.IdentityService`,
    ...Object.keys(options.serviceAddresses ?? {}),
    ...Object.keys(options.backends ?? {}),
  ]);
  const unrouted = new Map<string, string[]>();
  for (const tool of toolCatalogue)
    if (!routed.has(tool.rpc.service))
      unrouted.set(tool.rpc.service, [...(unrouted.get(tool.rpc.service) ?? []), tool.name]);
  if (unrouted.size === 0) return;
  throw new ConfigError(
    [...unrouted].map(
      ([service, tools]) =>
        `QUARRY_SERVICES: no address for ${service} (${tools.join(', ')}): add ${service}=<host>:<port>`,
    ),
  );
}
