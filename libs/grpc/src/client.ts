import * as grpc from '@grpc/grpc-js';
import { context, propagation, type TextMapSetter } from '@opentelemetry/api';
import { fromGrpcError, grpcErrors } from './errors.js';
import { writeIdentity, type Identity, type IdentitySigner } from './identity.js';

export interface CallOptions {
  /** Whose call this is; signed into metadata on every call. */
  identity: Identity;
  /** Relative deadline; the client's default when omitted. Every call has a deadline. */
  deadlineMs?: number;
  /** An absolute deadline to respect as well, e.g. the incoming call's `ctx.deadline`. */
  deadline?: Date;
  /** Cancels the call (the server's `ctx.signal` aborts too). */
  signal?: AbortSignal;
}

export interface ClientOptions {
  signer: IdentitySigner;
  defaultDeadlineMs?: number;
  credentials?: grpc.ChannelCredentials;
  /** Merged over DEFAULT_CHANNEL_OPTIONS. */
  channelOptions?: grpc.ChannelOptions;
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

const DEFAULT_DEADLINE_MS = 5_000;

export type Serialize<T> = (value: T) => Buffer;
export type Deserialize<T> = (bytes: Buffer) => T;

const metadataSetter: TextMapSetter<grpc.Metadata> = { set: (metadata, key, value) => metadata.set(key, value) };

function effectiveDeadline(options: CallOptions, defaultDeadlineMs: number): Date {
  const relative = Date.now() + (options.deadlineMs ?? defaultDeadlineMs);
  const absolute = options.deadline?.getTime() ?? Infinity;
  return new Date(Math.min(relative, absolute));
}

/**
 * The one place a unary call is made: signs identity, sets the deadline, propagates the active
 * trace context (the gRPC instrumentation, where OpenTelemetry runs, adds its client span over
 * it), cancels on the signal, maps errors to QuarryError. Nothing is sent when the signal has
 * already aborted or the deadline has already passed.
 */
async function unaryCall<Req, Res>(
  client: grpc.Client,
  signer: IdentitySigner,
  defaultDeadlineMs: number,
  path: string,
  serialize: Serialize<Req>,
  deserialize: Deserialize<Res>,
  request: Req,
  options: CallOptions,
): Promise<Res> {
  const deadline = effectiveDeadline(options, defaultDeadlineMs);
  const { signal } = options;
  const metadata = new grpc.Metadata();
  await writeIdentity(metadata, signer, options.identity);
  propagation.inject(context.active(), metadata, metadataSetter);
  if (signal?.aborted) throw grpcErrors.CANCELLED();
  if (deadline.getTime() <= Date.now()) throw grpcErrors.DEADLINE_EXCEEDED();
  return new Promise<Res>((resolve, reject) => {
    const onAbort = () => call.cancel();
    const call = client.makeUnaryRequest(
      path,
      serialize,
      deserialize,
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

interface AnyMethod {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- request/response types come from the definition
  requestSerialize: (value: any) => Buffer;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- request/response types come from the definition
  responseDeserialize: (bytes: Buffer) => any;
}

/** Names of the unary methods of a (ts-proto) service definition. */
export type UnaryMethodName<D> = {
  [K in keyof D]: D[K] extends { requestStream: false; responseStream: false } ? K : never;
}[keyof D] &
  string;
export type RequestOf<M> = M extends { requestSerialize: (value: infer Q) => Buffer } ? Q : never;
export type ResponseOf<M> = M extends { responseDeserialize: (bytes: Buffer) => infer R } ? R : never;

export interface GrpcClient<D> {
  /** Call `method` with the caller's identity; rejects with a QuarryError. */
  call<K extends UnaryMethodName<D>>(
    method: K,
    request: RequestOf<D[K]>,
    options: CallOptions,
  ): Promise<ResponseOf<D[K]>>;
  close(): void;
}

/** A ts-proto (or grpc-js generic) client constructor: constructible and carrying its definition. */
export interface ClientConstructor<D> {
  new (address: string, credentials: grpc.ChannelCredentials, options?: Partial<grpc.ClientOptions>): grpc.Client;
  service: D;
}

/**
 * A promise-returning client for one service at one address. Create it once per process and
 * reuse it: it holds one channel (one HTTP/2 connection, shared by grpc-js with any other
 * channel to the same address with the same options).
 */
export function createGrpcClient<D extends { readonly [name: string]: AnyMethod }>(
  ClientCtor: ClientConstructor<D>,
  address: string,
  options: ClientOptions,
): GrpcClient<D> {
  const client = new ClientCtor(address, options.credentials ?? grpc.credentials.createInsecure(), {
    ...DEFAULT_CHANNEL_OPTIONS,
    ...options.channelOptions,
  });
  const defaultDeadlineMs = options.defaultDeadlineMs ?? DEFAULT_DEADLINE_MS;
  return {
    call(method, request, callOptions) {
      const definition = ClientCtor.service[method];
      if (!definition || definition.requestStream || definition.responseStream) {
        return Promise.reject(new Error(`${String(method)} is not a unary method of this service`));
      }
      return unaryCall(
        client,
        options.signer,
        defaultDeadlineMs,
        definition.path,
        definition.requestSerialize,
        definition.responseDeserialize,
        request,
        callOptions,
      );
    },
    close: () => client.close(),
  };
}

export interface RawClient {
  /** Send already-encoded request bytes to `path` (`/pkg.Service/Method`); resolves to the encoded response. */
  unary(path: string, requestBytes: Uint8Array, options: CallOptions): Promise<Uint8Array>;
  close(): void;
}

const passThrough: Serialize<Uint8Array> = (bytes) =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const asBytes: Deserialize<Uint8Array> = (bytes) => bytes;

/**
 * A unary gRPC client for callers that encode and decode messages themselves: the gateway,
 * which works from descriptors and makes one such call per MCP tool call. It is a grpc-js
 * channel making the same call as `createGrpcClient` (signed identity, a deadline on every call,
 * cancellation, the QuarryError the server threw) with the bytes passed through. A hand-written
 * node:http2 client saved too little of the gateway's CPU per call to keep (ADR 0022).
 *
 * The channel's defaults (DEFAULT_CHANNEL_OPTIONS) keep the connection alive with pings and
 * reconnect after a GOAWAY or a lost peer; responses over 4 MiB fail RESOURCE_EXHAUSTED
 * (`grpc.max_receive_message_length` in `channelOptions` changes that).
 */
export function createRawClient(address: string, options: ClientOptions): RawClient {
  const client = new grpc.Client(address, options.credentials ?? grpc.credentials.createInsecure(), {
    ...DEFAULT_CHANNEL_OPTIONS,
    ...options.channelOptions,
  });
  const defaultDeadlineMs = options.defaultDeadlineMs ?? DEFAULT_DEADLINE_MS;
  let closed = false;
  return {
    unary(path, requestBytes, callOptions) {
      if (closed) return Promise.reject(grpcErrors.SERVICE_UNAVAILABLE());
      return unaryCall(
        client,
        options.signer,
        defaultDeadlineMs,
        path,
        passThrough,
        asBytes,
        requestBytes,
        callOptions,
      );
    },
    close() {
      closed = true;
      client.close();
    },
  };
}
