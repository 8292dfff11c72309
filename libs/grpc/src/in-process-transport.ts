import { type ChannelOptions, status } from '@grpc/grpc-js';
import { fromGrpcError, grpcErrors, QuarryError, toGrpcStatus } from './errors.js';
import type { InProcessServer, UnaryTransport } from './transport.js';

/** grpc-js's defaults: 4 MiB received, no limit sent. */
const DEFAULT_MAX_RECEIVE_BYTES = 4 * 1024 * 1024;

/**
 * What a caller gets for what the server threw: the QuarryError rebuilt from the status a
 * grpc-js server would have sent for it (toGrpcStatus → fromGrpcError), so the code, status,
 * message and details are exactly those a caller over HTTP/2 gets (details are JSON on the wire;
 * a cause stays on the server).
 */
function asReceived(error: unknown): QuarryError {
  return error instanceof QuarryError ? fromGrpcError(toGrpcStatus(error)) : grpcErrors.INTERNAL({ cause: error });
}

function exhausted(direction: 'Sent' | 'Received', length: number, max: number): QuarryError {
  return new QuarryError(
    'RESOURCE_EXHAUSTED',
    status.RESOURCE_EXHAUSTED,
    `${direction} message larger than max (${length} vs ${max})`,
  );
}

/**
 * The transport to a server in this process (the pattern of grpc-java's in-process channel and
 * grpc-go's bufconn): the request is encoded with the method's codec and handed to the server's
 * in-process entry, which decodes it and runs the same runner grpc-js would; no HTTP/2 framing,
 * no socket. The call keeps its deadline on this side too (DEADLINE_EXCEEDED when it passes, even
 * if the handler ignores its signal), the caller's signal cancels the handler's, and the message
 * size limits of `channelOptions` apply as over grpc-js.
 */
export function inProcessTransport(server: InProcessServer, channelOptions: ChannelOptions = {}): UnaryTransport {
  const maxReceive =
    (channelOptions['grpc.max_receive_message_length'] as number | undefined) ?? DEFAULT_MAX_RECEIVE_BYTES;
  const maxSend = (channelOptions['grpc.max_send_message_length'] as number | undefined) ?? -1;
  return {
    unary: (method, request, { metadata, deadline, signal }) =>
      new Promise((resolve, reject) => {
        let bytes: Buffer;
        try {
          bytes = method.requestSerialize(request);
        } catch (error) {
          reject(grpcErrors.INTERNAL({ cause: error }));
          return;
        }
        if (maxSend >= 0 && bytes.length > maxSend) {
          reject(exhausted('Sent', bytes.length, maxSend));
          return;
        }
        let done = false;
        const finish = () => {
          done = true;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
        };
        const fail = (error: QuarryError) => {
          if (done) return;
          finish();
          reject(error);
        };
        // The server aborts the handler at the same deadline, and on the caller's signal.
        const onAbort = () => fail(grpcErrors.CANCELLED());
        const timer = setTimeout(() => fail(grpcErrors.DEADLINE_EXCEEDED()), deadline.getTime() - Date.now());
        signal?.addEventListener('abort', onAbort, { once: true });
        server.unary(method.path, bytes, { metadata, deadline, cancelled: signal }).then(
          (response) => {
            if (done) return;
            finish();
            if (maxReceive >= 0 && response.length > maxReceive) {
              reject(exhausted('Received', response.length, maxReceive));
              return;
            }
            try {
              resolve(method.responseDeserialize(response));
            } catch (error) {
              reject(grpcErrors.INTERNAL({ cause: error }));
            }
          },
          (error: unknown) => fail(asReceived(error)),
        );
      }),
    close: () => undefined,
  };
}
