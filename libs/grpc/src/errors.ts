import { Metadata, status, type StatusObject } from '@grpc/grpc-js';

/** Trailing metadata key carrying the stable error code (e.g. `PLAN_NOT_FOUND`). */
export const ERROR_CODE_METADATA_KEY = 'x-quarry-error-code';
/** Trailing binary metadata key carrying the error details as UTF-8 JSON. */
export const ERROR_DETAILS_METADATA_KEY = 'x-quarry-error-details-bin';

/**
 * An expected failure with a stable, machine-readable `code` and the gRPC `status` it travels
 * as. Services throw these (from their catalogue); the gateway turns them into MCP tool errors
 * by `code`, so codes are part of the public contract and never change meaning.
 */
export class QuarryError extends Error {
  override readonly name = 'QuarryError';

  constructor(
    readonly code: string,
    readonly status: status,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export interface ErrorSpec {
  status: status;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the catalogue author annotates the params type
  message: string | ((params: any) => string);
}

export interface ErrorFactoryOptions {
  /** Structured data sent to the caller (keep it safe to show a user: no SQL, no secrets). */
  details?: Record<string, unknown>;
  /** The underlying error, kept locally for logs; never sent on the wire. */
  cause?: unknown;
}

type ParamsOf<S> = S extends { message: (params: infer P) => string } ? P : undefined;

export type ErrorFactory<P> = ([P] extends [undefined]
  ? (options?: ErrorFactoryOptions) => QuarryError
  : (params: P, options?: ErrorFactoryOptions) => QuarryError) & {
  readonly code: string;
  readonly status: status;
  /** True when `error` is a QuarryError with this factory's code (also after a network hop). */
  is(error: unknown): error is QuarryError;
};

export type ErrorCatalogue<C extends Record<string, ErrorSpec>> = {
  readonly [K in keyof C]: ErrorFactory<ParamsOf<C[K]>>;
};

const CODE_PATTERN = /^[A-Z][A-Z0-9_]*$/;

/**
 * Declare a service's errors once, keyed by their stable code, and get typed factories:
 *
 *     const errors = defineErrors({
 *       PLAN_NOT_FOUND: { status: status.NOT_FOUND, message: (p: { planId: string }) => `Plan ${p.planId} not found` },
 *     });
 *     throw errors.PLAN_NOT_FOUND({ planId });
 *
 * One catalogue per service keeps codes unique and greppable (the fastify `lib/errors.js` idea).
 */
export function defineErrors<const C extends Record<string, ErrorSpec>>(catalogue: C): ErrorCatalogue<C> {
  const factories: Record<string, unknown> = {};
  for (const [code, spec] of Object.entries(catalogue)) {
    if (!CODE_PATTERN.test(code)) throw new Error(`Error code "${code}" must be UPPER_SNAKE_CASE`);
    if (spec.status === status.OK || status[spec.status] === undefined) {
      throw new Error(`Error code "${code}" needs a gRPC status other than OK`);
    }
    const create = (...args: unknown[]): QuarryError => {
      const hasParams = typeof spec.message === 'function';
      const params = hasParams ? args[0] : undefined;
      const options = (hasParams ? args[1] : args[0]) as ErrorFactoryOptions | undefined;
      const message = typeof spec.message === 'function' ? spec.message(params) : spec.message;
      return new QuarryError(code, spec.status, message, options?.details, { cause: options?.cause });
    };
    factories[code] = Object.assign(create, {
      code,
      status: spec.status,
      is: (error: unknown): error is QuarryError => error instanceof QuarryError && error.code === code,
    });
  }
  return Object.freeze(factories) as ErrorCatalogue<C>;
}

/** The lib's own errors; services may throw these too rather than redefining them. */
export const grpcErrors = defineErrors({
  IDENTITY_MISSING: { status: status.UNAUTHENTICATED, message: 'Caller identity is missing' },
  IDENTITY_INVALID: { status: status.UNAUTHENTICATED, message: 'Caller identity is invalid' },
  IDENTITY_EXPIRED: { status: status.UNAUTHENTICATED, message: 'Caller identity has expired' },
  SERVICE_TOKEN_REFUSED: {
    status: status.UNAUTHENTICATED,
    message: (p: { reason: string }) => `Service-account token refused: ${p.reason}`,
  },
  SCOPE_INSUFFICIENT: {
    status: status.PERMISSION_DENIED,
    message: (p: { method: string; needed: string }) =>
      `${p.method} needs the scope ${p.needed}, which this service account's token does not carry`,
  },
  RPC_INTERNAL: {
    status: status.PERMISSION_DENIED,
    message: (p: { method: string }) =>
      `${p.method} is internal to Quarry's services; a service account may call the rpcs that are tools`,
  },
  DEADLINE_EXCEEDED: { status: status.DEADLINE_EXCEEDED, message: 'Deadline exceeded' },
  CANCELLED: { status: status.CANCELLED, message: 'Call cancelled' },
  INTERNAL: { status: status.INTERNAL, message: 'Internal error' },
  INVALID_ARGUMENT: {
    status: status.INVALID_ARGUMENT,
    message: (p: { field?: string; reason: string }) => (p.field ? `${p.field}: ${p.reason}` : p.reason),
  },
  SERVICE_UNAVAILABLE: { status: status.UNAVAILABLE, message: 'Service unavailable' },
  DEPENDENCY_UNAVAILABLE: {
    status: status.UNAVAILABLE,
    message: 'The service cannot reach one of its dependencies (e.g. its database) right now; retry shortly',
  },
});

/**
 * The code given to a status that arrives without `x-quarry-error-code` (a failure raised by
 * grpc-js itself, a proxy, or a non-Quarry server): the status name, except UNAVAILABLE, which
 * reads `SERVICE_UNAVAILABLE` so it is not mistaken for a domain "not available" error.
 */
export function defaultErrorCode(code: status): string {
  if (code === status.UNAVAILABLE) return 'SERVICE_UNAVAILABLE';
  return status[code] ?? 'UNKNOWN';
}

/** Server side: the status object grpc-js sends for a QuarryError. */
export function toGrpcStatus(error: QuarryError): StatusObject {
  const metadata = new Metadata();
  metadata.set(ERROR_CODE_METADATA_KEY, error.code);
  if (error.details !== undefined) {
    metadata.set(ERROR_DETAILS_METADATA_KEY, Buffer.from(JSON.stringify(error.details), 'utf8'));
  }
  return { code: error.status, details: error.message, metadata };
}

interface ServiceErrorLike {
  code: number;
  details?: string;
  message?: string;
  metadata?: Metadata;
}

function isServiceErrorLike(error: unknown): error is ServiceErrorLike {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'number';
}

function readDetails(metadata: Metadata | undefined): Record<string, unknown> | undefined {
  const raw = metadata?.get(ERROR_DETAILS_METADATA_KEY)[0];
  if (raw === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : raw);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Client side: turn a grpc-js ServiceError back into the QuarryError the server threw (same
 * code, status, message, details). Anything else becomes a QuarryError too, so callers handle
 * exactly one error type.
 */
export function fromGrpcError(error: unknown): QuarryError {
  if (error instanceof QuarryError) return error;
  if (!isServiceErrorLike(error) || status[error.code] === undefined || error.code === status.OK) {
    return grpcErrors.INTERNAL({ cause: error });
  }
  const sent = error.metadata?.get(ERROR_CODE_METADATA_KEY)[0];
  const code = typeof sent === 'string' && CODE_PATTERN.test(sent) ? sent : defaultErrorCode(error.code);
  const message = error.details || error.message || defaultErrorCode(error.code);
  return new QuarryError(code, error.code, message, readDetails(error.metadata), { cause: error });
}
