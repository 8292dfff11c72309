import * as grpc from '@grpc/grpc-js';
import { HealthImplementation, type ServingStatusMap } from 'grpc-health-check';
import { toGrpcStatus, type QuarryError } from './errors.js';
import { createInProcessDispatcher, type InProcessMethod } from './in-process-server.js';
import type { InProcessServer } from './transport.js';
import { addReflection } from './reflection.js';
import type { IdentityVerifier } from './identity.js';
import {
  createCallRunner,
  type CallContext,
  type CallRunner,
  type GrpcLogger,
  type UnaryHandler,
} from './serve-call.js';
import type { ServiceTokenVerifier } from './service-token.js';

const HANDLER = Symbol('quarry.grpc.unary');
type Tagged = { [HANDLER]: UnaryHandler<unknown, unknown> };

/**
 * Write a unary method as an async function. The result type-checks as ts-proto's
 * `handleUnaryCall`, so it slots into a generated `XServiceServer` implementation object; the
 * identity check, cancellation and error mapping are attached when `createGrpcServer`
 * registers it. Registered any other way it fails closed with INTERNAL.
 */
export function unary<Req, Res>(fn: UnaryHandler<Req, Res>): grpc.handleUnaryCall<Req, Res> {
  const unregistered: grpc.handleUnaryCall<Req, Res> = (_call, callback) =>
    callback({ code: grpc.status.INTERNAL, details: 'Handler was not registered through createGrpcServer' });
  return Object.assign(unregistered, { [HANDLER]: fn as UnaryHandler<unknown, unknown> });
}

/** A handler written as a plain function of the service's shared dependencies, the request and the call. */
export type ServiceHandler<D, Req, Res> = (deps: D, request: Req, ctx: CallContext) => Promise<Res>;

type BoundHandlers<D, H> = {
  [K in keyof H]: H[K] extends ServiceHandler<D, infer Req, infer Res> ? grpc.handleUnaryCall<Req, Res> : never;
};

/**
 * A service's implementation from its handler files: each `(deps, request, ctx)` handler becomes
 * the `unary()` method of the same name with `deps` bound, so a call goes from the server's
 * identity check straight to its handler (services/<name>/src/handlers/<rpc>.ts).
 */
export function handlersWith<D, H extends Record<string, ServiceHandler<D, never, unknown>>>(
  deps: D,
  handlers: H,
): BoundHandlers<D, H> {
  const bound: Record<string, grpc.handleUnaryCall<unknown, unknown>> = {};
  for (const [name, handler] of Object.entries(handlers)) {
    bound[name] = unary((request: unknown, ctx) => handler(deps, request as never, ctx));
  }
  return bound as BoundHandlers<D, H>;
}

/**
 * The async function a `unary()` method wraps, for callers that serve a service in-process
 * (the benchmark's monolith baseline). Calling it skips identity verification, so only trusted
 * code that builds the CallContext itself may use it. `undefined` for anything not from `unary()`.
 */
export function unaryHandlerOf(method: unknown): UnaryHandler<unknown, unknown> | undefined {
  return typeof method === 'function' ? (method as Partial<Tagged>)[HANDLER] : undefined;
}

export interface ServiceRegistration {
  /** A grpc-js service definition, e.g. ts-proto's `XServiceService`. */
  definition: grpc.ServiceDefinition;
  /** Every method implemented with `unary()`. */
  implementation: grpc.UntypedServiceImplementation;
}

export interface GrpcServerOptions {
  services: readonly ServiceRegistration[];
  verifier: IdentityVerifier;
  /** Also accept service accounts' access tokens (`authorization: Bearer`); only signed identities when unset. */
  serviceTokens?: ServiceTokenVerifier;
  logger?: GrpcLogger;
  /** A binary FileDescriptorSet (e.g. `buf build -o x.binpb`) to serve gRPC reflection from. */
  descriptorSet?: Uint8Array;
  credentials?: grpc.ServerCredentials;
  serverOptions?: grpc.ServerOptions;
  /**
   * Whether a handler's error means a dependency is unreachable (e.g. `isConnectionFailure` of
   * @quarry/db): such a call fails DEPENDENCY_UNAVAILABLE (UNAVAILABLE, worth a retry) and is
   * logged as a warning, where any other unexpected error is an INTERNAL bug.
   */
  isUnavailable?: (error: unknown) => boolean;
}

export interface GrpcServer {
  server: grpc.Server;
  /**
   * The same services for callers in this process (`createRawClient(server.inProcess, …)`):
   * every call goes through the same identity check, deadline, cancellation and error mapping
   * as over grpc-js, without HTTP/2 or a socket, whether or not the server listens (ADR 0053).
   */
  inProcess: InProcessServer;
  /** Per-service health (`''` is the whole server); flip a service to NOT_SERVING when it degrades. */
  health: HealthImplementation;
  /** Fully qualified names of the registered services. */
  serviceNames: readonly string[];
  /** Bind and start serving; returns the bound port (useful with port 0). */
  listen(host: string, port: number): Promise<number>;
  /** Health NOT_SERVING, then let in-flight calls (of either transport) finish for up to `graceMs`, then force. */
  shutdown(graceMs?: number): Promise<void>;
}

/**
 * Server defaults for loopback and Kubernetes: ping idle clients so dead peers are noticed,
 * and recycle connections every few minutes so long-lived clients spread over new replicas.
 */
const DEFAULT_SERVER_OPTIONS: grpc.ServerOptions = {
  'grpc.keepalive_time_ms': 60_000,
  'grpc.keepalive_timeout_ms': 20_000,
  'grpc.max_connection_age_ms': 5 * 60_000,
  'grpc.max_connection_age_grace_ms': 30_000,
};

const consoleLogger: GrpcLogger = {
  error: (obj, msg) => console.error(msg, obj),
  warn: (obj, msg) => console.warn(msg, obj),
};

/** `/pkg.Service/Method` → `pkg.Service`. */
function serviceNameOf(definition: grpc.ServiceDefinition): string {
  const first = Object.values(definition)[0];
  if (!first) throw new Error('A service definition has no methods');
  return first.path.split('/')[1]!;
}

function deadlineOf(call: grpc.ServerUnaryCall<unknown, unknown>): Date | undefined {
  const deadline = call.getDeadline();
  const ms = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(ms) ? new Date(ms) : undefined;
}

/** A method's runner as grpc-js calls it: from an HTTP/2 stream, back to its status. */
function overGrpcJs(run: CallRunner): grpc.handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    run({
      request: call.request,
      metadata: call.metadata,
      deadline: deadlineOf(call),
      onCancel(listener) {
        call.once('cancelled', listener);
        return () => call.off('cancelled', listener);
      },
    }).then(
      (response) => callback(null, response),
      (error: QuarryError) => callback(toGrpcStatus(error)),
    );
  };
}

/**
 * Build (not start) a gRPC server: every registered unary method verifies the caller's
 * identity before its handler runs; health and reflection are added outside that check
 * because kubelet probes and grpcurl carry no identity.
 */
export function createGrpcServer(options: GrpcServerOptions): GrpcServer {
  const logger = options.logger ?? consoleLogger;
  const server = new grpc.Server({ ...DEFAULT_SERVER_OPTIONS, ...options.serverOptions });
  const serviceNames: string[] = [];
  const inProcessMethods = new Map<string, InProcessMethod>();
  const runnerOptions = {
    verifier: options.verifier,
    serviceTokens: options.serviceTokens,
    logger,
    isUnavailable: options.isUnavailable ?? (() => false),
  };

  for (const { definition, implementation } of options.services) {
    const name = serviceNameOf(definition);
    const adapted: grpc.UntypedServiceImplementation = {};
    for (const [key, method] of Object.entries(definition)) {
      if (method.requestStream || method.responseStream) {
        throw new Error(`${method.path}: streaming methods are not supported yet`);
      }
      const handler = implementation[key] as Partial<Tagged> | undefined;
      const fn = handler?.[HANDLER];
      if (!fn) throw new Error(`${method.path}: implement it with unary() so the caller's identity is verified`);
      const run = createCallRunner(method.path, fn, runnerOptions);
      adapted[key] = overGrpcJs(run);
      inProcessMethods.set(method.path, {
        requestDeserialize: method.requestDeserialize,
        responseSerialize: method.responseSerialize,
        run,
      });
    }
    server.addService(definition, adapted);
    serviceNames.push(name);
  }

  const statuses: ServingStatusMap = { '': 'SERVING' };
  for (const name of serviceNames) statuses[name] = 'SERVING';
  const health = new HealthImplementation(statuses);
  health.addToServer(server);

  if (options.descriptorSet) addReflection(server, options.descriptorSet, serviceNames);
  const maxReceive = options.serverOptions?.['grpc.max_receive_message_length'] as number | undefined;
  const inProcess = createInProcessDispatcher(serviceNames, inProcessMethods, maxReceive ?? 4 * 1024 * 1024);

  let stopping: Promise<void> | undefined;

  return {
    server,
    health,
    serviceNames,
    inProcess: inProcess.server,
    listen(host, port) {
      const address = host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
      return new Promise((resolve, reject) => {
        server.bindAsync(address, options.credentials ?? grpc.ServerCredentials.createInsecure(), (error, bound) =>
          error ? reject(error) : resolve(bound),
        );
      });
    },
    shutdown(graceMs = 10_000) {
      stopping ??= new Promise<void>((resolve) => {
        for (const name of Object.keys(statuses)) health.setStatus(name, 'NOT_SERVING');
        // Past the grace, the calls still in flight are cut; the shutdown still resolves only once
        // grpc-js reports every listener and session closed (forcing destroys the sessions, which
        // completes the pending tryShutdown), so nothing listens once it has resolved.
        const force = setTimeout(() => {
          server.forceShutdown();
          inProcess.cancelAll();
        }, graceMs);
        const overGrpc = new Promise<void>((closed) => server.tryShutdown(() => closed()));
        void Promise.all([overGrpc, inProcess.drain()]).then(() => {
          clearTimeout(force);
          resolve();
        });
      });
      return stopping;
    },
  };
}
