import * as grpc from '@grpc/grpc-js';
import { fromGrpcError } from './errors.js';
import type { UnaryTransport } from './transport.js';

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

/**
 * The transport to a service at `address` over HTTP/2: one grpc-js channel (one connection,
 * shared by grpc-js with any other channel to the same address with the same options).
 */
export function grpcJsTransport(
  address: string,
  credentials: grpc.ChannelCredentials | undefined,
  channelOptions: grpc.ChannelOptions | undefined,
): UnaryTransport {
  const client = new grpc.Client(address, credentials ?? grpc.credentials.createInsecure(), {
    ...DEFAULT_CHANNEL_OPTIONS,
    ...channelOptions,
  });
  return {
    unary: (method, request, { metadata, deadline, signal }) =>
      new Promise((resolve, reject) => {
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
            else resolve(response!);
          },
        );
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    close: () => client.close(),
  };
}
