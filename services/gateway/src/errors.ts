import { status } from '@grpc/grpc-js';

/**
 * The gateway's one error catalogue. HTTP-level failures answer with a JSON-RPC error body;
 * tool-level failures become MCP tool results with `isError: true` and a stable `code` the
 * model (and dashboards) can rely on. Codes never change meaning once published.
 */
export const httpErrors = {
  UNAUTHENTICATED: { http: 401, rpc: -32001 },
  // A refused Host or Origin. The SDK's guards (@modelcontextprotocol/fastify) answer it
  // themselves, with this code and no `data`: listed so the catalogue says what goes out.
  FORBIDDEN_ORIGIN: { http: 403, rpc: -32000 },
  // A valid credential without the scope a tool needs; the challenge names the scope (step-up).
  INSUFFICIENT_SCOPE: { http: 403, rpc: -32004 },
  RATE_LIMITED: { http: 429, rpc: -32003 },
  PAYLOAD_TOO_LARGE: { http: 413, rpc: -32600 },
  UNSUPPORTED_MEDIA_TYPE: { http: 415, rpc: -32600 },
  NOT_ACCEPTABLE: { http: 406, rpc: -32600 },
  PARSE_ERROR: { http: 400, rpc: -32700 },
  INVALID_REQUEST: { http: 400, rpc: -32600 },
  NOT_FOUND: { http: 404, rpc: -32601 },
  METHOD_NOT_ALLOWED: { http: 405, rpc: -32601 },
  UNAVAILABLE: { http: 503, rpc: -32603 },
  INTERNAL: { http: 500, rpc: -32603 },
} as const;

export type HttpErrorCode = keyof typeof httpErrors;

export function jsonRpcErrorBody(code: HttpErrorCode, message: string, data?: Record<string, unknown>) {
  return { jsonrpc: '2.0' as const, id: null, error: { code: httpErrors[code].rpc, message, data: { code, ...data } } };
}

/** What the model is told for each gRPC status when the service gave no better message. */
const toolErrorByStatus: Record<number, { code: string; retryable: boolean; fallback: string }> = {
  [status.INVALID_ARGUMENT]: { code: 'INVALID_ARGUMENT', retryable: false, fallback: 'The arguments are invalid.' },
  [status.NOT_FOUND]: { code: 'NOT_FOUND', retryable: false, fallback: 'Not found.' },
  [status.ALREADY_EXISTS]: { code: 'ALREADY_EXISTS', retryable: false, fallback: 'It already exists.' },
  [status.FAILED_PRECONDITION]: {
    code: 'FAILED_PRECONDITION',
    retryable: false,
    fallback: 'The operation is not allowed in the current state.',
  },
  [status.ABORTED]: { code: 'CONFLICT', retryable: true, fallback: 'A concurrent change conflicted; retry.' },
  [status.OUT_OF_RANGE]: { code: 'OUT_OF_RANGE', retryable: false, fallback: 'A value is out of range.' },
  [status.PERMISSION_DENIED]: { code: 'PERMISSION_DENIED', retryable: false, fallback: 'Not allowed.' },
  [status.UNAUTHENTICATED]: { code: 'UNAUTHENTICATED', retryable: false, fallback: 'Not authenticated.' },
  [status.RESOURCE_EXHAUSTED]: {
    code: 'RESOURCE_EXHAUSTED',
    retryable: true,
    fallback: 'A limit was reached; retry later.',
  },
  [status.UNAVAILABLE]: {
    code: 'SERVICE_UNAVAILABLE',
    retryable: true,
    fallback: 'The service is temporarily unavailable; retry shortly.',
  },
  [status.DEADLINE_EXCEEDED]: {
    code: 'DEADLINE_EXCEEDED',
    retryable: true,
    fallback: 'The service did not answer in time; retry.',
  },
  [status.CANCELLED]: { code: 'CANCELLED', retryable: true, fallback: 'The call was cancelled.' },
  [status.UNIMPLEMENTED]: {
    code: 'UNIMPLEMENTED',
    retryable: false,
    fallback: 'This tool is not available on this server.',
  },
};

export interface ToolErrorShape {
  code: string;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
}

/** Map a service error (already decoded from gRPC) to what the model sees. */
export function toolErrorFromStatus(
  grpcStatus: number,
  code: string | undefined,
  message: string | undefined,
  requestId: string,
  details?: Record<string, unknown>,
): ToolErrorShape {
  const known = toolErrorByStatus[grpcStatus];
  if (!known) {
    // INTERNAL, UNKNOWN, DATA_LOSS: never pass internals through to a client.
    return {
      code: 'INTERNAL',
      retryable: false,
      message: `Quarry failed to complete this call (request ${requestId}). It has been logged.`,
    };
  }
  return {
    code: code ?? known.code,
    retryable: known.retryable,
    message: message && message.length > 0 ? message : known.fallback,
    ...(details ? { details } : {}),
  };
}
