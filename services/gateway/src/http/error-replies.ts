import { isConnectionFailure } from '@quarry/db';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type HttpErrorCode, type HttpRefusal, httpErrors, jsonRpcErrorBody, jsonRpcIdOf } from '../errors.js';
import { IssuerUnavailableError } from '../oauth/access-tokens.js';

/** What a 503 asks clients to wait: a restart or failover of PostgreSQL takes seconds. */
const RETRY_AFTER_SECONDS = 2;

/**
 * An HTTP-level JSON-RPC error. It carries the request's id whenever its body was read (a body
 * that could not be parsed, or a refusal before parsing, answers `id: null`).
 */
export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  code: HttpErrorCode,
  message: string,
  headers: Record<string, string> = {},
) {
  return reply
    .code(httpErrors[code].http)
    .headers({ 'content-type': 'application/json', ...headers })
    .send(jsonRpcErrorBody(code, message, undefined, jsonRpcIdOf(request.body)));
}

/** Sends a refusal built elsewhere (errors.ts) as it is. */
export function sendRefusal(reply: FastifyReply, refusal: HttpRefusal) {
  return reply
    .code(refusal.status)
    .headers({ 'content-type': 'application/json', ...refusal.headers })
    .send(refusal.body);
}

function mapFastifyError(error: FastifyError, bodyLimitBytes: number): { code: HttpErrorCode; message: string } {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        code: 'PAYLOAD_TOO_LARGE',
        message: `The request body is larger than the limit of ${bodyLimitBytes} bytes.`,
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send MCP messages as `Content-Type: application/json`.' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { code: 'INVALID_REQUEST', message: 'The request body is empty; send a JSON-RPC message.' };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { code: 'PARSE_ERROR', message: `Parse error: the body is not valid JSON (${error.message}).` };
    default:
      break;
  }
  if (error instanceof SyntaxError || error.statusCode === 400) {
    return { code: 'PARSE_ERROR', message: `Parse error: ${error.message}` };
  }
  if (error.statusCode === 413) return { code: 'PAYLOAD_TOO_LARGE', message: error.message };
  if (error.statusCode === 415) return { code: 'UNSUPPORTED_MEDIA_TYPE', message: error.message };
  if (error.statusCode === 429) return { code: 'RATE_LIMITED', message: error.message };
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500)
    return { code: 'INVALID_REQUEST', message: error.message };
  // The external issuer's keys cannot be fetched: its tokens may be good, so retry rather than 401.
  if (error instanceof IssuerUnavailableError)
    return {
      code: 'UNAVAILABLE',
      message: 'Quarry cannot reach the authorization server to check this token right now; retry in a few seconds.',
    };
  // e.g. the token lookup while PostgreSQL restarts: an outage to wait out, not a bug.
  if (isConnectionFailure(error))
    return { code: 'UNAVAILABLE', message: 'Quarry cannot reach its database right now; retry in a few seconds.' };
  return { code: 'INTERNAL', message: 'Internal error.' };
}

/** The gateway's error handler: every failure of the HTTP layer as a JSON-RPC error body. */
export function errorHandler(bodyLimitBytes: number) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const mapped = mapFastifyError(error, bodyLimitBytes);
    if (mapped.code === 'INTERNAL') request.log.error({ err: error }, 'unhandled error in HTTP layer');
    if (mapped.code === 'UNAVAILABLE') {
      request.log.warn(
        { err: error },
        error instanceof IssuerUnavailableError
          ? 'request failed: authorization server unreachable'
          : 'request failed: database unreachable',
      );
      return sendError(request, reply, mapped.code, mapped.message, { 'retry-after': String(RETRY_AFTER_SECONDS) });
    }
    return sendError(request, reply, mapped.code, mapped.message);
  };
}
