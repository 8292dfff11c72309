import * as grpc from '@grpc/grpc-js';
import { context, propagation, type TextMapSetter } from '@opentelemetry/api';
import { grpcErrors } from './errors.js';
import { grpcJsTransport } from './grpc-js-transport.js';
import { inProcessTransport } from './in-process-transport.js';
import type { InProcessServer, UnaryMethod } from './transport.js';

/** When a call ends at the latest, whoever makes it. */
export interface CallLimits {
  /** Relative deadline; the channel's default when omitted. Every call has a deadline. */
  deadlineMs?: number;
  /** An absolute deadline to respect as well, e.g. the incoming call's `ctx.deadline`. */
  deadline?: Date;
  /** Cancels the call (the server's `ctx.signal` aborts too). */
  signal?: AbortSignal;
}

/**
 * Says who is calling: writes the caller's credential into one call's metadata. The channel runs
 * it on every call before anything is sent (the signed identity of `createGrpcClient`, a service
 * account's bearer token of `bearerToken`); whatever it throws rejects the call as is.
 */
export type Authenticate<O extends CallLimits> = (metadata: grpc.Metadata, options: O) => Promise<void>;

/**
 * Where a channel's calls go: a gRPC address (`host:port`, over grpc-js), or a server in this
 * process (`GrpcServer.inProcess`, when the services share the caller's process).
 */
export type ServiceTarget = string | InProcessServer;

export interface UnaryChannelOptions<O extends CallLimits> {
  authenticate: Authenticate<O>;
  /** The deadline of a call that sets none: each kind of caller names its own. */
  defaultDeadlineMs: number;
  /** Plaintext when omitted (loopback, a cluster's network); TLS credentials elsewhere. Unused in process. */
  credentials?: grpc.ChannelCredentials;
  /** Merged over DEFAULT_CHANNEL_OPTIONS; in process only the message size limits apply. */
  channelOptions?: grpc.ChannelOptions;
}

export interface UnaryChannel<O extends CallLimits> {
  /** Call `method`; rejects with the QuarryError the server threw (or one for the failure). */
  call<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, options: O): Promise<Res>;
  /** Closes the channel; later calls fail SERVICE_UNAVAILABLE without being sent. */
  close(): void;
}

const metadataSetter: TextMapSetter<grpc.Metadata> = { set: (metadata, key, value) => metadata.set(key, value) };

function effectiveDeadline(options: CallLimits, defaultDeadlineMs: number): Date {
  const relative = Date.now() + (options.deadlineMs ?? defaultDeadlineMs);
  const absolute = options.deadline?.getTime() ?? Infinity;
  return new Date(Math.min(relative, absolute));
}

/**
 * A channel to one target and the one place a unary call is made, whoever makes it (a service
 * calling a peer, the gateway, a program as a service account): the caller's credential written
 * by `authenticate`, a deadline on every call (counted from the call's start, so the time
 * `authenticate` takes is inside it), the active trace context propagated (the gRPC
 * instrumentation, where OpenTelemetry runs, adds its client span over it on grpc-js),
 * cancellation by the signal, errors mapped to QuarryError. Nothing is sent when the signal has
 * aborted or the deadline has passed by the time the credential is written. The transport
 * (transport.ts) only carries the call: over grpc-js to an address, or to a server in this process.
 *
 * Create it once per process and target and reuse it: to an address it holds one channel (one
 * HTTP/2 connection, shared by grpc-js with any other channel to the same address and options).
 */
export function openUnaryChannel<O extends CallLimits>(
  target: ServiceTarget,
  options: UnaryChannelOptions<O>,
): UnaryChannel<O> {
  const transport =
    typeof target === 'string'
      ? grpcJsTransport(target, options.credentials, options.channelOptions)
      : inProcessTransport(target, options.channelOptions);
  const { authenticate, defaultDeadlineMs } = options;
  let closed = false;

  async function call<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, callOptions: O): Promise<Res> {
    if (closed) throw grpcErrors.SERVICE_UNAVAILABLE();
    const deadline = effectiveDeadline(callOptions, defaultDeadlineMs);
    const { signal } = callOptions;
    const metadata = new grpc.Metadata();
    await authenticate(metadata, callOptions);
    propagation.inject(context.active(), metadata, metadataSetter);
    if (signal?.aborted) throw grpcErrors.CANCELLED();
    if (deadline.getTime() <= Date.now()) throw grpcErrors.DEADLINE_EXCEEDED();
    return transport.unary(method, request, { metadata, deadline, signal });
  }

  return {
    call,
    close() {
      closed = true;
      transport.close();
    },
  };
}
