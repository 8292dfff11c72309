import type { Metadata } from '@grpc/grpc-js';

export type Serialize<T> = (value: T) => Buffer;
export type Deserialize<T> = (bytes: Buffer) => T;

/** What a unary call needs of a method: a ts-proto service definition's entry has these fields. */
export interface UnaryMethod<Req, Res> {
  path: string;
  requestSerialize: Serialize<Req>;
  responseDeserialize: Deserialize<Res>;
}

/** One call as the channel hands it to its transport: credential and trace context already written. */
export interface TransportCall {
  metadata: Metadata;
  /** Absolute; the transport ends the call with DEADLINE_EXCEEDED when it passes. */
  deadline: Date;
  /** Cancels the call on both sides (CANCELLED). */
  signal?: AbortSignal;
}

/**
 * How a channel's calls reach the server: the one seam between "which process the service is
 * in" and everything a call means (credential, deadline, trace context, cancellation, errors),
 * which the channel (unary-call.ts) does the same for every transport. Two adapters: grpc-js over
 * HTTP/2 (grpc-js-transport.ts) and a server in this process (in-process-transport.ts). Both reject
 * with the QuarryError the server threw, or one for the failure.
 */
export interface UnaryTransport {
  unary<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, call: TransportCall): Promise<Res>;
  close(): void;
}

/** What a caller in the same process needs of a server: see `GrpcServer.inProcess`. */
export interface InProcessServer {
  /** Fully qualified names of the services it serves. */
  readonly serviceNames: readonly string[];
  /**
   * Serve one call: the request's bytes in, the response's bytes out, or the QuarryError the
   * server would have sent. `cancelled` aborts when the caller cancels; without it, the call ends
   * at its deadline.
   */
  unary(
    path: string,
    request: Buffer,
    call: { metadata: Metadata; deadline: Date; cancelled?: AbortSignal },
  ): Promise<Buffer>;
}
