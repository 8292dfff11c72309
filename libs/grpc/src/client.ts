import type * as grpc from '@grpc/grpc-js';
import { writeIdentity, type Identity, type IdentitySigner } from './identity.js';
import type { Deserialize, Serialize } from './transport.js';
import { openUnaryChannel, type Authenticate, type CallLimits, type ServiceTarget } from './unary-call.js';

export interface CallOptions extends CallLimits {
  /** Whose call this is; signed into metadata on every call. */
  identity: Identity;
}

export interface ClientOptions {
  signer: IdentitySigner;
  /** 5 s when omitted (PEER_DEADLINE_MS); the gateway passes QUARRY_GRPC_DEADLINE. */
  defaultDeadlineMs?: number;
  credentials?: grpc.ChannelCredentials;
  /** Merged over DEFAULT_CHANNEL_OPTIONS. */
  channelOptions?: grpc.ChannelOptions;
}

/**
 * The default deadline of a call made with the signed identity: mostly a service calling a peer
 * inside one of its own rpcs (plan engine ↔ artifact store, extraction → artifact store), which
 * is one step of that rpc's work and passes the rpc's own `ctx.deadline` as well, so it never
 * outlives its caller. The gateway, whose call is a whole tool call, sets its own
 * (QUARRY_GRPC_DEADLINE, 10 s), as @quarry/client does for programs.
 */
const PEER_DEADLINE_MS = 5_000;

/** The identity the gateway or a service signs with the shared key, and the request id beside it (ADR 0003). */
function signedIdentity(signer: IdentitySigner): Authenticate<CallOptions> {
  return (metadata, options) => writeIdentity(metadata, signer, options.identity);
}

function signedChannel(target: ServiceTarget, options: ClientOptions) {
  return openUnaryChannel<CallOptions>(target, {
    authenticate: signedIdentity(options.signer),
    defaultDeadlineMs: options.defaultDeadlineMs ?? PEER_DEADLINE_MS,
    credentials: options.credentials,
    channelOptions: options.channelOptions,
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
 * A promise-returning client for one service at one target (an address, or a server in this
 * process), calling with a signed identity (`openUnaryChannel`'s one call). Create it once per
 * process and reuse it.
 */
export function createGrpcClient<D extends { readonly [name: string]: AnyMethod }>(
  ClientCtor: ClientConstructor<D>,
  target: ServiceTarget,
  options: ClientOptions,
): GrpcClient<D> {
  const channel = signedChannel(target, options);
  return {
    call(method, request, callOptions) {
      const definition = ClientCtor.service[method];
      if (!definition || definition.requestStream || definition.responseStream) {
        return Promise.reject(new Error(`${String(method)} is not a unary method of this service`));
      }
      return channel.call(definition, request, callOptions);
    },
    close: () => channel.close(),
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
 * which works from descriptors and makes one such call per MCP tool call. It makes the same call
 * as `createGrpcClient` (signed identity, a deadline on every call, cancellation, the QuarryError
 * the server threw) with the bytes passed through. A hand-written node:http2 client saved too
 * little of the gateway's CPU per call to keep (ADR 0022).
 *
 * The channel's defaults (DEFAULT_CHANNEL_OPTIONS) keep the connection alive with pings and
 * reconnect after a GOAWAY or a lost peer; responses over 4 MiB fail RESOURCE_EXHAUSTED
 * (`grpc.max_receive_message_length` in `channelOptions` changes that). To a server in this
 * process (`GrpcServer.inProcess`) the call is the same without HTTP/2 or a socket (ADR 0053).
 */
export function createRawClient(target: ServiceTarget, options: ClientOptions): RawClient {
  const channel = signedChannel(target, options);
  return {
    unary: (path, requestBytes, callOptions) =>
      channel.call({ path, requestSerialize: passThrough, responseDeserialize: asBytes }, requestBytes, callOptions),
    close: () => channel.close(),
  };
}
