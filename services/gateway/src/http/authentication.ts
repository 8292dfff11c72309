import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthFailure, UnconfirmedAuth } from '../identity/auth-result.js';
import type { TokenAuthenticator } from '../identity/authenticator.js';
import type { Principal } from '../identity/schema.js';
import { sendError } from './error-replies.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller, once its revocation check has passed. */
    principal?: Principal;
    /** A cached caller whose revocation check is still in flight (then `principal` is unset). */
    unconfirmed?: UnconfirmedAuth;
    /** Why the token could not be checked (the database or the issuer is unreachable), answered once the body is read. */
    authenticationError?: unknown;
  }
}

const AUTH_MESSAGES: Record<AuthFailure, string> = {
  missing:
    'Authentication required: sign in with OAuth, or send `Authorization: Bearer qry_…` with a Quarry personal access token.',
  malformed:
    'The bearer token is not a Quarry personal access token (`qry_` followed by 43 letters and digits) or an OAuth access token (a JWT).',
  unknown: 'The bearer token is not valid.',
  audience: 'The access token was issued for another resource than this MCP endpoint.',
  expired: 'The bearer token has expired; create a new one with `quarry token create`.',
  revoked: 'The bearer token has been revoked.',
};

function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1] ?? (header ? 'invalid' : undefined);
}

/**
 * Bearer authentication of the MCP endpoint. A request without a valid token is refused before
 * its body is read (a stranger's body is never read, so the 401 has no request id); one whose
 * token could not be checked (an outage) is answered once its body is read, with its id. A
 * cached token's revocation check (one round trip) is left in flight by `authenticate`: a
 * read-only fast-path call overlaps it with its rpc; everything else waits for it in
 * `confirmedPrincipal`. Every 401's challenge points the client at the protected-resource
 * metadata (RFC 9728).
 */
export function createAuthentication(
  authenticator: Pick<TokenAuthenticator, 'authenticate' | 'authenticateUnconfirmed'>,
  resourceMetadata: string | undefined,
) {
  const metadataParam = resourceMetadata ? `, resource_metadata="${resourceMetadata}"` : '';
  const refuse = (request: FastifyRequest, reply: FastifyReply, reason: AuthFailure) => {
    const challenge =
      reason === 'missing'
        ? `Bearer realm="quarry"${metadataParam}`
        : `Bearer realm="quarry"${metadataParam}, error="invalid_token", error_description="${AUTH_MESSAGES[reason]}"`;
    return sendError(request, reply, 'UNAUTHENTICATED', AUTH_MESSAGES[reason], { 'www-authenticate': challenge });
  };

  return {
    /** The onRequest hook: refuses a request without a valid token, or records its (perhaps unconfirmed) caller. */
    async authenticate(request: FastifyRequest, reply: FastifyReply) {
      if (reply.sent || reply.raw.headersSent) return;
      let result: Awaited<ReturnType<typeof authenticator.authenticateUnconfirmed>>;
      try {
        result = await authenticator.authenticateUnconfirmed(bearerOf(request));
      } catch (error) {
        request.authenticationError = error;
        return;
      }
      if (!result.ok) return refuse(request, reply, result.reason);
      if ('confirmed' in result) request.unconfirmed = result;
      else request.principal = result.principal;
    },

    /** The preValidation hook: a token that could not be checked is answered now, the body read. */
    async answerUncheckedToken(request: FastifyRequest) {
      if (request.authenticationError !== undefined) throw request.authenticationError;
    },

    /** The caller once its revocation check passed; undefined when it failed (401 sent). */
    async confirmedPrincipal(request: FastifyRequest, reply: FastifyReply): Promise<Principal | undefined> {
      const pending = request.unconfirmed;
      if (request.principal || !pending) return request.principal;
      request.unconfirmed = undefined;
      if (await pending.confirmed) return (request.principal = pending.principal);
      // The cached entry could not be vouched for: look the token up as if it had not been cached.
      const result = await authenticator.authenticate(bearerOf(request));
      if (!result.ok) {
        refuse(request, reply, result.reason);
        return undefined;
      }
      return (request.principal = result.principal);
    },
  };
}

export type Authentication = ReturnType<typeof createAuthentication>;
