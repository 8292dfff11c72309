import * as grpc from '@grpc/grpc-js';
import type { TokenSource } from './token-source.js';

/** A unary method of a ts-proto grpc-js service definition. */
interface UnaryMethod {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- request/response types come from the definition
  requestSerialize: (value: any) => Buffer;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- request/response types come from the definition
  responseDeserialize: (bytes: Buffer) => any;
}

type UnaryName<D> = {
  [K in keyof D]: D[K] extends { requestStream: false; responseStream: false } ? K : never;
}[keyof D] &
  string;
type RequestOf<M> = M extends { requestSerialize: (value: infer Q) => Buffer } ? Q : never;
type ResponseOf<M> = M extends { responseDeserialize: (bytes: Buffer) => infer R } ? R : never;

export interface CallOptions {
  /** Relative deadline; 10 s when omitted. */
  deadlineMs?: number;
  signal?: AbortSignal;
}

/** One service's rpcs as promise-returning methods named like the generated client's (e.g. `getPlanStatus`). */
export type ServiceClient<D> = {
  [K in UnaryName<D>]: (request: RequestOf<D[K]>, options?: CallOptions) => Promise<ResponseOf<D[K]>>;
} & { close(): void };

/** What a service answered instead of a result: the gRPC status and Quarry's stable error code. */
export class QuarryCallError extends Error {
  override readonly name = 'QuarryCallError';
  constructor(
    /** The gRPC status, e.g. `grpc.status.NOT_FOUND` (5). */
    readonly status: grpc.status,
    /** Quarry's error code from the `x-quarry-error-code` trailer, e.g. `PLAN_NOT_FOUND`. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const DEFAULT_DEADLINE_MS = 10_000;

function callError(error: grpc.ServiceError): QuarryCallError {
  const code = error.metadata?.get('x-quarry-error-code')[0];
  return new QuarryCallError(
    error.code,
    typeof code === 'string' ? code : (grpc.status[error.code] ?? 'UNKNOWN'),
    error.details || error.message,
  );
}

/**
 * A client of one service: every call first gets the account's token (cached), sends it as
 * `authorization: Bearer <token>`, and has a deadline. `credentials` defaults to plaintext,
 * which suits loopback and a cluster's internal network; pass TLS credentials elsewhere.
 */
export function createServiceClient<D extends Record<string, UnaryMethod>>(
  definition: D,
  address: string,
  tokens: TokenSource,
  credentials: grpc.ChannelCredentials = grpc.credentials.createInsecure(),
): ServiceClient<D> {
  const channel = new grpc.Client(address, credentials);
  const methods: Record<string, unknown> = { close: () => channel.close() };
  for (const [name, method] of Object.entries(definition)) {
    if (method.requestStream || method.responseStream) continue;
    methods[name] = async (request: unknown, options: CallOptions = {}) => {
      const metadata = new grpc.Metadata();
      metadata.set('authorization', `Bearer ${await tokens.token()}`);
      const deadline = new Date(Date.now() + (options.deadlineMs ?? DEFAULT_DEADLINE_MS));
      return new Promise((resolve, reject) => {
        const call = channel.makeUnaryRequest(
          method.path,
          method.requestSerialize,
          method.responseDeserialize,
          request,
          metadata,
          { deadline },
          (error, response) => {
            options.signal?.removeEventListener('abort', cancel);
            if (error) reject(callError(error));
            else resolve(response);
          },
        );
        const cancel = () => call.cancel();
        options.signal?.addEventListener('abort', cancel, { once: true });
      });
    };
  }
  return methods as ServiceClient<D>;
}
