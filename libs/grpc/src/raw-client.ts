import * as grpc from '@grpc/grpc-js';
import {
  type CallOptions,
  type ClientOptions,
  DEFAULT_CHANNEL_OPTIONS,
  DEFAULT_DEADLINE_MS,
  type Deserialize,
  type Serialize,
  unaryCall,
} from './client.js';
import { grpcErrors } from './errors.js';

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
