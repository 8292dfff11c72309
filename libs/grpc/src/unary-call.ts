import * as grpc from '@grpc/grpc-js';
import { context, propagation, type TextMapSetter } from '@opentelemetry/api';
import { fromGrpcError, grpcErrors } from './errors.js';

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

export type Serialize<T> = (value: T) => Buffer;
export type Deserialize<T> = (bytes: Buffer) => T;

/** What a unary call needs of a method: a ts-proto service definition's entry has these fields. */
export interface UnaryMethod<Req, Res> {
  path: string;
  requestSerialize: Serialize<Req>;
  responseDeserialize: Deserialize<Res>;
}

/**
 * Channel defaults for loopback and Kubernetes: keepalive pings notice a dead peer within
 * ~40 s even between calls (grpc-js servers accept pings at this rate), reconnects back off to
 * at most 5 s so a restarted pod is found quickly, and no HTTP proxy is ever used for
 * service-to-service traffic even when the environment sets one.
 */
export const DEFAULT_CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.initial_reconnect_backoff_ms': 250,
  'grpc.max_reconnect_backoff_ms': 5_000,
  'grpc.enable_http_proxy': 0,
};

export interface UnaryChannelOptions<O extends CallLimits> {
  authenticate: Authenticate<O>;
  /** The deadline of a call that sets none: each kind of caller names its own. */
  defaultDeadlineMs: number;
  /** Plaintext when omitted (loopback, a cluster's network); TLS credentials elsewhere. */
  credentials?: grpc.ChannelCredentials;
  /** Merged over DEFAULT_CHANNEL_OPTIONS. */
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
 * A grpc-js channel to one address and the one place a unary call is made, whoever makes it (a
 * service calling a peer, the gateway, a program as a service account): the caller's credential
 * written by `authenticate`, a deadline on every call (counted from the call's start, so the
 * time `authenticate` takes is inside it), the active trace context propagated (the gRPC
 * instrumentation, where OpenTelemetry runs, adds its client span over it), cancellation by the
 * signal, errors mapped to QuarryError. Nothing is sent when the signal has aborted or the
 * deadline has passed by the time the credential is written.
 *
 * Create it once per process and address and reuse it: it holds one channel (one HTTP/2
 * connection, shared by grpc-js with any other channel to the same address with the same options).
 */
export function openUnaryChannel<O extends CallLimits>(
  address: string,
  options: UnaryChannelOptions<O>,
): UnaryChannel<O> {
  const client = new grpc.Client(address, options.credentials ?? grpc.credentials.createInsecure(), {
    ...DEFAULT_CHANNEL_OPTIONS,
    ...options.channelOptions,
  });
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
    return new Promise<Res>((resolve, reject) => {
      const onAbort = () => pending.cancel();
      const pending = client.makeUnaryRequest(
        method.path,
        method.requestSerialize,
        method.responseDeserialize,
        request,
        metadata,
        { deadline },
        (error, response) => {
          signal?.removeEventListener('abort', onAbort);
          if (error) reject(fromGrpcError(error));
          else resolve(response as Res);
        },
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  return {
    call,
    close() {
      closed = true;
      client.close();
    },
  };
}
