import type { Metadata } from '@grpc/grpc-js';
import { readCaller } from './caller.js';
import { grpcErrors, QuarryError } from './errors.js';
import { IDENTITY_METADATA_KEY, type Identity, type IdentityVerifier } from './identity.js';
import type { ServiceTokenVerifier } from './service-token.js';

/** What a handler knows about its call besides the request. */
export interface CallContext {
  /** The verified caller; a handler only runs once this is established. */
  identity: Identity;
  /** When the caller stops waiting; pass it on to downstream gRPC calls. */
  deadline: Date | undefined;
  /** Aborted when the caller cancels or the deadline passes: stop work, roll back. */
  signal: AbortSignal;
  /** Incoming metadata, without the identity token or bearer (so logging it leaks no credential). */
  metadata: Metadata;
  /** Full method path, e.g. `/quarry.plan.v1.PlanService/GetNextStep`. */
  method: string;
}

export type UnaryHandler<Req, Res> = (request: Req, ctx: CallContext) => Promise<Res>;

/** Minimal logger; a pino logger fits as is. */
export interface GrpcLogger {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** One call as a server's transport received it, the request already decoded. */
export interface IncomingCall {
  request: unknown;
  metadata: Metadata;
  deadline: Date | undefined;
  /** Runs `listener` when the caller cancels; returns how to stop listening. */
  onCancel(listener: () => void): () => void;
}

/** Serves one call of a method: resolves to the response, rejects with the QuarryError to send. */
export type CallRunner = (call: IncomingCall) => Promise<unknown>;

export interface CallRunnerOptions {
  verifier: IdentityVerifier;
  serviceTokens: ServiceTokenVerifier | undefined;
  logger: GrpcLogger;
  isUnavailable: (error: unknown) => boolean;
}

function withoutToken(metadata: Metadata): Metadata {
  const copy = metadata.clone();
  copy.remove(IDENTITY_METADATA_KEY);
  copy.remove('authorization');
  return copy;
}

/**
 * What every call of a unary method goes through on the server, whichever transport brought it
 * (grpc-js, or a client in the same process): the caller's identity verified before the handler
 * runs, its signal aborted by cancellation or the deadline, and every failure turned into the
 * QuarryError the caller gets (unexpected ones INTERNAL, a lost dependency DEPENDENCY_UNAVAILABLE).
 */
export function createCallRunner(method: string, fn: UnaryHandler<unknown, unknown>, options: CallRunnerOptions) {
  const { verifier, serviceTokens, logger, isUnavailable } = options;

  async function run(call: IncomingCall, signal: AbortSignal): Promise<unknown> {
    let identity: Identity;
    try {
      identity = await readCaller(call.metadata, method, verifier, serviceTokens);
    } catch (error) {
      const rejected = error instanceof QuarryError ? error : grpcErrors.IDENTITY_INVALID({ cause: error });
      logger.warn({ method, code: rejected.code }, 'gRPC call rejected: caller not authenticated or not allowed');
      throw rejected;
    }
    const ctx: CallContext = {
      identity,
      deadline: call.deadline,
      signal,
      metadata: withoutToken(call.metadata),
      method,
    };
    try {
      return await fn(call.request, ctx);
    } catch (error) {
      if (error instanceof QuarryError) throw error;
      if (signal.aborted) throw signal.reason as QuarryError; // the caller is gone; not a bug here
      if (isUnavailable(error)) {
        logger.warn({ err: error, method, requestId: identity.requestId }, 'gRPC handler could not reach a dependency');
        throw grpcErrors.DEPENDENCY_UNAVAILABLE({ details: { requestId: identity.requestId }, cause: error });
      }
      logger.error({ err: error, method, requestId: identity.requestId }, 'gRPC handler failed');
      throw grpcErrors.INTERNAL({ details: { requestId: identity.requestId }, cause: error });
    }
  }

  const runner: CallRunner = (call) => {
    const controller = new AbortController();
    const stopListening = call.onCancel(() => controller.abort(grpcErrors.CANCELLED()));
    const { deadline } = call;
    const timer = deadline
      ? setTimeout(() => controller.abort(grpcErrors.DEADLINE_EXCEEDED()), Math.max(0, deadline.getTime() - Date.now()))
      : undefined;
    return run(call, controller.signal).finally(() => {
      clearTimeout(timer);
      stopListening();
    });
  };
  return runner;
}
