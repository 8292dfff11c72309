import type { ChannelCredentials } from '@grpc/grpc-js';
import {
  bearerToken,
  openUnaryChannel,
  type CallLimits,
  type RequestOf,
  type ResponseOf,
  type TokenSource,
  type UnaryMethodName,
} from '@quarry/grpc';

/** A method of a ts-proto grpc-js service definition. */
interface ServiceMethod {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- request/response types come from the definition
  requestSerialize: (value: any) => Buffer;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- request/response types come from the definition
  responseDeserialize: (bytes: Buffer) => any;
}

/** `deadlineMs` (10 s when omitted), an absolute `deadline`, a `signal` that cancels the call. */
export type CallOptions = CallLimits;

/** One service's rpcs as promise-returning methods named like the generated client's (e.g. `getPlanStatus`). */
export type ServiceClient<D> = {
  [K in UnaryMethodName<D>]: (request: RequestOf<D[K]>, options?: CallOptions) => Promise<ResponseOf<D[K]>>;
} & { close(): void };

/**
 * The default deadline of a program's call: like the gateway's, each call is a whole tool's work
 * asked for from outside (a batch of artifacts, an extraction), so it gets the gateway's default
 * QUARRY_GRPC_DEADLINE, not the 5 s of a service's call to a peer inside an rpc of its own.
 */
const PROGRAM_DEADLINE_MS = 10_000;

/**
 * A client of one service: every call is @quarry/grpc's one unary call, authenticated with the
 * account's token (cached by the token source) as `authorization: Bearer <token>`, with a
 * deadline counted from the call's start (the token request included), the trace context, and
 * the service's error as the QuarryError it threw. `credentials` defaults to plaintext, which
 * suits loopback and a cluster's internal network; pass TLS credentials elsewhere.
 */
export function createServiceClient<D extends Record<string, ServiceMethod>>(
  definition: D,
  address: string,
  tokens: TokenSource,
  credentials?: ChannelCredentials,
): ServiceClient<D> {
  const channel = openUnaryChannel(address, {
    authenticate: bearerToken(tokens),
    defaultDeadlineMs: PROGRAM_DEADLINE_MS,
    credentials,
  });
  const methods: Record<string, unknown> = { close: () => channel.close() };
  for (const [name, method] of Object.entries(definition)) {
    if (method.requestStream || method.responseStream) continue;
    methods[name] = (request: unknown, options: CallOptions = {}) => channel.call(method, request, options);
  }
  return methods as ServiceClient<D>;
}
