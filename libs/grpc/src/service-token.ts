import type { Metadata } from '@grpc/grpc-js';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { grpcErrors } from './errors.js';
import type { Principal } from './identity.js';
import type { Authenticate, CallLimits } from './unary-call.js';

/**
 * The audience (RFC 8707 resource) of every token a service account gets for calling the
 * services directly. It is not the MCP endpoint's URL, so an MCP access token is refused here
 * and a service-account token is refused by the gateway's /mcp.
 */
export const SERVICE_TOKEN_AUDIENCE = 'urn:quarry:grpc';
/** The claims the embedded authorization server adds to a service account's token. */
export const ORG_CLAIM = 'quarry_org';
export const SERVICE_ACCOUNT_CLAIM = 'quarry_service_account';

/** A direct caller: a service account of one org, with the scopes its token carries. */
export interface ServiceAccountPrincipal extends Principal {
  kind: 'service';
  scopes: readonly string[];
}

export interface ServiceTokenVerifier {
  /** The caller in `token`, or a QuarryError SERVICE_TOKEN_REFUSED naming why. */
  verify(token: string): Promise<ServiceAccountPrincipal>;
}

export interface ServiceTokenVerifierOptions {
  /** The authorization server's issuer (the gateway's public URL under the embedded one). */
  issuer: string;
  /** Where its public keys are; `<issuer>/oauth/jwks` when omitted. */
  jwksUrl?: string;
  /** Keys to verify with instead of fetching `jwksUrl` (tests). */
  keys?: JWTVerifyGetKey;
  now?: () => number;
}

const CACHE_LIMIT = 10_000;
const BEARER = /^Bearer ([\w.~+/-]+=*)$/i;

/** The bearer token of an `authorization` metadata entry, or undefined when there is none. */
export function bearerFrom(metadata: Metadata): string | undefined {
  const values = metadata.get('authorization');
  if (values.length === 0) return undefined;
  const [value] = values;
  const match = values.length === 1 && typeof value === 'string' ? BEARER.exec(value) : null;
  if (!match) throw grpcErrors.SERVICE_TOKEN_REFUSED({ reason: 'send one "authorization: Bearer <token>" entry' });
  return match[1];
}

/** Where a service account's access token comes from: asked on every call, so it may cache and renew it. */
export interface TokenSource {
  token(): Promise<string>;
}

/**
 * Client side: a service account's calls carry its token as the one `authorization: Bearer …`
 * entry `bearerFrom` reads (and no signed identity, which the services would read first).
 */
export function bearerToken(tokens: TokenSource): Authenticate<CallLimits> {
  return async (metadata) => {
    metadata.set('authorization', `Bearer ${await tokens.token()}`);
  };
}

function reasonFor(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'it has expired; get a new one from the token endpoint';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud')
      return `it was not issued for ${SERVICE_TOKEN_AUDIENCE} (ask for resource=${SERVICE_TOKEN_AUDIENCE})`;
    if (error.claim === 'iss') return 'it was issued by another authorization server';
    return `its ${error.claim} claim is missing or wrong`;
  }
  if (error instanceof joseErrors.JWKSNoMatchingKey)
    return 'it was signed with a key the authorization server does not publish';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'its signature does not verify';
  if (error instanceof joseErrors.JOSEError) return `it is not a valid access token (${error.code})`;
  return 'the authorization server could not be reached to check it';
}

/**
 * Verifies a service account's access token (a JWT from the client_credentials grant) with
 * jose: signature against the issuer's published keys (fetched and cached by `kid`; an unknown
 * `kid` refetches, so a rotated key is picked up), `iss`, `aud` = SERVICE_TOKEN_AUDIENCE,
 * `exp`/`nbf`, and the RFC 9068 `at+jwt` type, so an ID token is never taken for one.
 * The token is self-contained: a revoked account gets no new token, and the one it holds
 * lives until its short `exp`.
 */
export function createServiceTokenVerifier(options: ServiceTokenVerifierOptions): ServiceTokenVerifier {
  const jwksUrl = options.jwksUrl ?? `${options.issuer.replace(/\/$/, '')}/oauth/jwks`;
  const keys = options.keys ?? createRemoteJWKSet(new URL(jwksUrl), { cooldownDuration: 10_000 });
  const now = options.now ?? Date.now;
  // A client reuses its token for minutes: remember a verified one until its exp, so a call
  // costs a map lookup instead of an ES256 verification.
  const verified = new Map<string, { principal: ServiceAccountPrincipal; expiresAtMs: number }>();
  return {
    async verify(token) {
      const hit = verified.get(token);
      if (hit && now() < hit.expiresAtMs) return { ...hit.principal };
      if (hit) verified.delete(token);
      let payload;
      try {
        ({ payload } = await jwtVerify(token, keys, {
          issuer: options.issuer,
          audience: SERVICE_TOKEN_AUDIENCE,
          typ: 'at+jwt',
          algorithms: ['ES256'],
          clockTolerance: 5,
          requiredClaims: ['exp', ORG_CLAIM, SERVICE_ACCOUNT_CLAIM],
          currentDate: options.now ? new Date(options.now()) : undefined,
        }));
      } catch (error) {
        throw grpcErrors.SERVICE_TOKEN_REFUSED({ reason: reasonFor(error) }, { cause: error });
      }
      const org = payload[ORG_CLAIM];
      const account = payload[SERVICE_ACCOUNT_CLAIM];
      const clientId = payload.client_id ?? payload.sub;
      if (typeof org !== 'string' || typeof account !== 'string' || typeof clientId !== 'string') {
        throw grpcErrors.SERVICE_TOKEN_REFUSED({ reason: 'it names no service account' });
      }
      const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [];
      const principal: ServiceAccountPrincipal = {
        kind: 'service',
        orgId: org,
        serviceName: `service-account:${account}`,
        tokenId: clientId,
        scopes,
      };
      if (verified.size >= CACHE_LIMIT) verified.delete(verified.keys().next().value as string);
      verified.set(token, { principal, expiresAtMs: payload.exp! * 1000 });
      return { ...principal };
    },
  };
}
