import { status } from '@grpc/grpc-js';
import { type CallToolResult, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/**
 * The gateway's one error catalogue. HTTP-level failures answer with a JSON-RPC error body;
 * tool-level failures become MCP tool results with `isError: true` and a stable `code` the
 * model (and dashboards) can rely on. Codes never change meaning once published.
 */
export const httpErrors = {
  UNAUTHENTICATED: { http: 401, rpc: -32001 },
  // A refused Host or Origin. The SDK's guards (@modelcontextprotocol/fastify) answer it
  // themselves, before the body is read, with this code, no `data` and `id: null`: listed so the
  // catalogue says what goes out.
  FORBIDDEN_ORIGIN: { http: 403, rpc: -32000 },
  // A valid credential without the scope a request needs; the challenge names the scope (step-up).
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

/** A JSON-RPC request id, or null when the request's body could not be read. */
export type JsonRpcId = string | number | null;

export function jsonRpcErrorBody(
  code: HttpErrorCode,
  message: string,
  data?: Record<string, unknown>,
  id: JsonRpcId = null,
) {
  return { jsonrpc: '2.0' as const, id, error: { code: httpErrors[code].rpc, message, data: { code, ...data } } };
}

/** The id of a JSON-RPC request body, when it has a usable one; null otherwise. */
export function jsonRpcIdOf(body: unknown): JsonRpcId {
  const id = body && typeof body === 'object' && !Array.isArray(body) ? (body as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** An HTTP answer the gateway writes itself: its status, headers and JSON-RPC error body. */
export interface HttpRefusal {
  status: number;
  headers: Record<string, string>;
  body: ReturnType<typeof jsonRpcErrorBody>;
}

/**
 * The one answer to a request beyond its credential's scopes, wherever it is found (a tool call,
 * a resource read or list, a listen stream): 403, a `WWW-Authenticate` challenge naming the scope
 * to ask for (RFC 6750 step-up) and pointing at the protected-resource metadata (RFC 9728), and
 * the JSON-RPC error INSUFFICIENT_SCOPE with the request's id.
 */
export function insufficientScope(
  needed: string,
  message: string,
  resourceMetadata: string | undefined,
  id: JsonRpcId,
): HttpRefusal {
  const metadata = resourceMetadata ? `, resource_metadata="${resourceMetadata}"` : '';
  return {
    status: httpErrors.INSUFFICIENT_SCOPE.http,
    headers: {
      'www-authenticate': `Bearer realm="quarry"${metadata}, error="insufficient_scope", scope="${needed}", error_description="${message}"`,
    },
    body: jsonRpcErrorBody('INSUFFICIENT_SCOPE', message, { scope: needed }, id),
  };
}

/**
 * The codes of tool errors the gateway makes itself (a service's own codes pass through, see
 * `toolErrorFromStatus`), with whether retrying the same call may succeed.
 */
export const gatewayToolErrors = {
  /** The arguments do not match the tool's input schema; the message names each field. */
  INVALID_ARGUMENT: { retryable: false },
  /** Quarry failed; the message carries the request id, the details are in the log. */
  INTERNAL: { retryable: false },
  /** A sampling retry carries the requestState of another call (another tool or arguments). */
  SAMPLING_STATE_MISMATCH: { retryable: false },
  /** A sampling retry carries no answer to the sampling request. */
  SAMPLING_ANSWER_MISSING: { retryable: false },
  /** An elicitation retry carries the requestState of another call. */
  ELICITATION_STATE_MISMATCH: { retryable: false },
  /** An elicitation retry carries no answer to the form. */
  ELICITATION_ANSWER_MISSING: { retryable: false },
  /** The user's answer to a form does not fit the form. */
  INVALID_ANSWER: { retryable: false },
  /** The credential may not call the tool that records a form's answer. */
  ANSWER_TOOL_UNAVAILABLE: { retryable: false },
  /** The org is past a quota; the details name it, its limit, the use and when it resets. */
  QUOTA_EXCEEDED: { retryable: true },
} as const;

export type GatewayToolErrorCode = keyof typeof gatewayToolErrors;

/** What a call of a tool the caller cannot see is counted as (it is answered as a JSON-RPC error). */
export const UNKNOWN_TOOL = 'UNKNOWN_TOOL';

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
  if (!known) return internalToolError(requestId);
  return {
    code: code ?? known.code,
    // A quota that never resets (storage: only a deletion frees it) is not worth retrying.
    retryable: known.retryable && !(code === 'QUOTA_EXCEEDED' && details?.resetsAt === 'never'),
    message: message && message.length > 0 ? message : known.fallback,
    ...(details ? { details } : {}),
  };
}

/** INTERNAL, UNKNOWN, DATA_LOSS or a failure in the gateway: never pass internals through to a client. */
export function internalToolError(requestId: string): ToolErrorShape {
  return {
    code: 'INTERNAL',
    retryable: gatewayToolErrors.INTERNAL.retryable,
    message: `Quarry failed to complete this call (request ${requestId}). It has been logged.`,
  };
}

/** The one builder of a tool error result: the message (with its code) as text, the error as structured content. */
export function toolError(error: ToolErrorShape): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${error.message} [${error.code}]` }],
    structuredContent: { error },
  };
}

/** A tool error of the gateway's own catalogue. */
export function gatewayToolError(code: GatewayToolErrorCode, message: string): CallToolResult {
  return toolError({ code, message, retryable: gatewayToolErrors[code].retryable });
}

/**
 * A tool the catalogue does not have, or one outside the caller's allowlist: both are answered
 * alike (JSON-RPC invalid params), so a caller learns nothing of tools it may not use.
 */
export function unknownTool(name: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Unknown tool: ${name}. Call tools/list for the available tools.`,
  );
}
