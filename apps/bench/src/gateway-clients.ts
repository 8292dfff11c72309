import { fromBinary, toBinary, type DescMethodUnary } from '@bufbuild/protobuf';
import { type Empty, EmptySchema } from '@bufbuild/protobuf/wkt';
import { ConnectError } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import type { ToolBackend } from '@quarry/gateway';
import {
  DEFAULT_CHANNEL_OPTIONS,
  fromGrpcError,
  IDENTITY_METADATA_KEY,
  type IdentitySigner,
  Metadata,
  REQUEST_ID_METADATA_KEY,
} from '@quarry/grpc';

/**
 * The gRPC clients the benchmark compares in the gateway, each making the same unary call with
 * the gateway's bytes: the one it ships with (grpc-js, `createRawClient`) and connect-node.
 */
export type GatewayClient = 'grpc-js' | 'connect';

type Closable = ToolBackend & { close(): void };

/**
 * @connectrpc/connect-node's gRPC transport over HTTP/2. Connect serializes protobuf-es messages;
 * the gateway has bytes, so every call goes as a google.protobuf.Empty whose unknown fields are
 * the request (protobuf-es keeps and writes back unknown fields), and the response is read the
 * same way. That pass-through costs one scan of the top-level fields each way.
 */
export function connectBackend(address: string, signer: IdentitySigner, defaultDeadlineMs: number): Closable {
  const transport = createGrpcTransport({
    baseUrl: `http://${address}`,
    defaultTimeoutMs: defaultDeadlineMs,
    pingIntervalMs: DEFAULT_CHANNEL_OPTIONS['grpc.keepalive_time_ms'] as number,
    pingTimeoutMs: DEFAULT_CHANNEL_OPTIONS['grpc.keepalive_timeout_ms'] as number,
    pingIdleConnection: true,
    readMaxBytes: 4 * 1024 * 1024,
  });
  const methods = new Map<string, DescMethodUnary>();
  const methodOf = (path: string) => {
    let method = methods.get(path);
    if (!method) {
      const [, service, name] = path.split('/');
      method = {
        kind: 'rpc',
        name: name!,
        localName: name!,
        methodKind: 'unary',
        input: EmptySchema,
        output: EmptySchema,
        parent: { typeName: service! },
      } as unknown as DescMethodUnary;
      methods.set(path, method);
    }
    return method;
  };
  return {
    async unary(path, request, call) {
      const token = await signer.sign(call.identity);
      try {
        const response = await transport.unary(
          methodOf(path),
          call.signal,
          call.deadlineMs,
          { [IDENTITY_METADATA_KEY]: token, [REQUEST_ID_METADATA_KEY]: call.identity.requestId },
          fromBinary(EmptySchema, request),
          undefined,
        );
        return toBinary(EmptySchema, response.message as Empty);
      } catch (error) {
        if (!(error instanceof ConnectError)) throw fromGrpcError(error);
        const headers: Record<string, string> = {};
        error.metadata.forEach((value, key) => (headers[key] = value));
        throw fromGrpcError({
          code: error.code,
          details: error.rawMessage,
          message: error.rawMessage,
          metadata: Metadata.fromHttp2Headers(headers),
        });
      }
    },
    close() {
      // The transport's HTTP/2 session closes itself when idle; nothing to release here.
    },
  };
}
