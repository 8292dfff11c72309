import { createServer } from 'node:net';
import type * as grpc from '@grpc/grpc-js';
import { explainBindError, type ServiceTokenIssuer } from '@quarry/config';
import { descriptorSet } from '@quarry/contracts';
import { isConnectionFailure } from '@quarry/db';
import type { Metrics, RunningService } from '@quarry/telemetry';
import { createIdentityVerifier } from './identity.js';
import type { InProcessServer } from './transport.js';
import type { GrpcLogger } from './serve-call.js';
import { createGrpcServer, type GrpcServer } from './server.js';
import { createServiceTokenVerifier } from './service-token.js';

export interface ServiceServerOptions {
  /** The service's grpc-js definition, e.g. ts-proto's `planV1.PlanServiceService`. */
  definition: grpc.ServiceDefinition;
  /** Every method written with `unary()`. */
  implementation: grpc.UntypedServiceImplementation;
  /** QUARRY_IDENTITY_KEY: every call's signed identity is verified with it before a handler runs. */
  identityKey: string;
  /**
   * QUARRY_SERVICE_TOKEN_ISSUER (and optionally QUARRY_SERVICE_TOKEN_JWKS_URL): also accept
   * service accounts' access tokens from this authorization server; unset, only signed identities.
   */
  serviceTokens?: ServiceTokenIssuer;
  logger: GrpcLogger;
  /** grpc-js server options over the defaults, e.g. a larger `grpc.max_receive_message_length`. */
  serverOptions?: grpc.ServerOptions;
}

/**
 * A Quarry service's gRPC server, built but not listening: the service, health (kubelet's
 * gRPC probes) and reflection (grpcurl) from the contracts' descriptor set, every call's
 * identity verified (the gateway's signed identity, or a service account's token when configured), and a handler that cannot reach PostgreSQL answered DEPENDENCY_UNAVAILABLE
 * (retryable) instead of INTERNAL. Every service builds its server here, so they all behave alike.
 */
export function buildServiceServer(options: ServiceServerOptions): GrpcServer {
  return createGrpcServer({
    services: [{ definition: options.definition, implementation: options.implementation }],
    verifier: createIdentityVerifier({ key: options.identityKey }),
    serviceTokens: options.serviceTokens ? createServiceTokenVerifier(options.serviceTokens) : undefined,
    logger: options.logger,
    descriptorSet,
    isUnavailable: isConnectionFailure,
    serverOptions: options.serverOptions,
  });
}

export interface ListenOptions {
  host: string;
  /** PORT: the gRPC port (0 = any free port). */
  port: number;
  /** METRICS_PORT: serve `metrics` on host:metricsPort too; unset, the hosting process exposes them. */
  metricsPort?: number;
  metrics: Metrics;
  /** What the service owns (pools, clients): released after the server has drained, or when listening fails. */
  release?: () => Promise<void> | void;
}

type ServeMetrics = (typeof import('@quarry/telemetry'))['serveMetrics'];

/** A listening gRPC service: every `start<Service>` of a gRPC service returns this. */
export interface ListeningService extends RunningService {
  port: number;
  /** `host:port`, what clients dial. */
  address: string;
  /** The same service for callers in this process: no HTTP/2, no socket (ADR 0053). */
  inProcess: InProcessServer;
  serviceNames: readonly string[];
}

/**
 * Whether host:port can be bound, tried with a plain socket first: grpc-js would also log its
 * own "No address added" line to stderr before the configuration error says what to do.
 */
function probe(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  const socket = createServer();
  return new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.listen({ host, port, exclusive: true }, () => socket.close(() => resolve()));
  });
}

/**
 * Listen (metrics first, then gRPC) and hand back the one shape every service returns, so each
 * `start<Service>` only says what it owns. A busy port is a ConfigError naming PORT or
 * METRICS_PORT; whatever was already started is stopped and released first. close(): health
 * NOT_SERVING (probes and balancers stop sending), drain for up to `graceMs`, release, and stop
 * serving metrics last, so the drain can still be scraped.
 */
export async function listenService(server: GrpcServer, options: ListenOptions): Promise<ListeningService> {
  const { host, port } = options;
  const release = options.release ?? (() => undefined);
  let served: Awaited<ReturnType<ServeMetrics>> | undefined;
  let bound: number;
  try {
    // Loaded here, not with the module: a program that only calls the services (@quarry/client
    // makes this lib's unary call) does not load the telemetry stack. A service has started
    // telemetry long before it listens (runService), so this import is already loaded there.
    const { serveMetrics } = await import('@quarry/telemetry');
    served = await serveMetrics(host, options.metricsPort, options.metrics);
    bound = await probe(host, port)
      .then(() => server.listen(host, port))
      .catch((error: unknown) => {
        throw explainBindError('PORT', host, port, error);
      });
  } catch (error) {
    server.server.forceShutdown();
    await served?.close();
    await release();
    throw error;
  }
  return {
    port: bound,
    address: `${host}:${bound}`,
    inProcess: server.inProcess,
    metricsPort: served.port,
    serviceNames: server.serviceNames,
    async close(graceMs = 10_000) {
      await server.shutdown(graceMs);
      await release();
      await served.close();
    },
  };
}
