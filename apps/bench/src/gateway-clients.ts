import { fromBinary, toBinary, type DescMethodUnary } from '@bufbuild/protobuf';
import { type Empty, EmptySchema } from '@bufbuild/protobuf/wkt';
import { ConnectError } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';
import type { ToolBackend } from '@quarry/gateway';
import {
  createGrpcClient,
  DEFAULT_CHANNEL_OPTIONS,
  fromGrpcError,
  IDENTITY_METADATA_KEY,
  type IdentitySigner,
  REQUEST_ID_METADATA_KEY,
} from '@quarry/grpc';

/** The gateway's backend clients the benchmark compares, each making the same unary call with bytes. */
export type GatewayClient = 'raw' | 'connect' | 'grpc-js';

type Closable = ToolBackend & { close(): void };

const passThrough = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const asBytes = (bytes: Buffer): Uint8Array => bytes;

/**
 * grpc-js through the lib's typed client: one generic method per rpc path, with serializers that
 * pass the gateway's bytes through.
 */
export function grpcJsBackend(address: string, signer: IdentitySigner, defaultDeadlineMs: number): Closable {
  const methods: Record<string, grpc.MethodDefinition<Uint8Array, Uint8Array>> = {};
  const methodOf = (path: string) =>
    (methods[path] ??= {
      path,
      requestStream: false,
      responseStream: false,
      requestSerialize: passThrough,
      requestDeserialize: passThrough,
      responseSerialize: passThrough,
      responseDeserialize: asBytes,
    });
  // Every rpc path the gateway may call is added on first use; the constructor reads the
  // definition per call, so a lazily filled object is enough.
  const Ctor = grpc.makeGenericClientConstructor(methods as grpc.ServiceDefinition, 'QuarryBytes');
  const client = createGrpcClient(Ctor as unknown as Parameters<typeof createGrpcClient<typeof methods>>[0], address, {
    signer,
    defaultDeadlineMs,
  });
  return {
    unary(path, request, call) {
      methodOf(path);
      return client.call(path as never, request as never, {
        identity: call.identity,
        deadlineMs: call.deadlineMs,
        signal: call.signal,
      }) as Promise<Uint8Array>;
    },
    close: () => client.close(),
  };
}

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
          metadata: grpc.Metadata.fromHttp2Headers(headers),
        });
      }
    },
    close() {
      // The transport's HTTP/2 session closes itself when idle; nothing to release here.
    },
  };
}
