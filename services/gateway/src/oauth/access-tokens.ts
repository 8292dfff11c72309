import { createLocalJWKSet, errors, type JSONWebKeySet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { Kysely } from 'kysely';
import type { AuthFailure } from '../identity/auth-result.js';
import { type Found, forAccessToken, loadGrant } from '../identity/credentials.js';
import type { IdentityDatabase, Principal } from '../identity/schema.js';
import { isScope } from '../identity/scopes.js';

/**
 * A verified access token, ready for the authenticator: `key` names the cache entry its
 * principal shares with other tokens of the same grant (or subject), `load` reads that principal,
 * and `shape` narrows it to this token's scopes and lifetime.
 */
export interface VerifiedCredential {
  key: string;
  load: (db: Kysely<IdentityDatabase>) => Promise<Found | undefined>;
  shape: (principal: Principal) => Principal;
}

export type VerifiedAccessToken = { ok: true; credential: VerifiedCredential } | { ok: false; reason: AuthFailure };

/** Checks OAuth access tokens (JWTs) meant for this resource server. */
export interface AccessTokenVerifier {
  verify(token: string): Promise<VerifiedAccessToken>;
}

/** The custom claims the embedded authorization server adds to every access token it issues. */
export const ORG_CLAIM = 'quarry_org';
export const GRANT_CLAIM = 'quarry_grant';

const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]+$/;

export function looksLikeJwt(token: string): boolean {
  return JWT_SHAPE.test(token);
}

/**
 * Verifies a JWT access token with jose: the signature against the issuer's keys (by `kid`),
 * `iss`, `aud` = this MCP resource (RFC 8707), `exp`/`nbf` with a small clock tolerance, and
 * the `at+jwt` type (RFC 9068), so an ID token or any other JWT of the same issuer is refused.
 */
export function createAccessTokenVerifier(options: {
  issuer: string;
  audience: string;
  keys: JWTVerifyGetKey;
  now?: () => number;
}): AccessTokenVerifier {
  return {
    async verify(token) {
      if (!looksLikeJwt(token)) return { ok: false, reason: 'malformed' };
      try {
        const { payload } = await jwtVerify(token, options.keys, {
          issuer: options.issuer,
          audience: options.audience,
          typ: 'at+jwt',
          algorithms: ['ES256'],
          clockTolerance: 5,
          requiredClaims: ['exp', 'sub', ORG_CLAIM, GRANT_CLAIM],
          currentDate: options.now ? new Date(options.now()) : undefined,
        });
        const org = payload[ORG_CLAIM];
        const grant = payload[GRANT_CLAIM];
        if (typeof org !== 'string' || typeof grant !== 'string') return { ok: false, reason: 'unknown' };
        const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(isScope) : [];
        const claims = {
          grantId: grant,
          userId: payload.sub!,
          orgId: org,
          scopes,
          expiresAt: new Date(payload.exp! * 1000),
        };
        return {
          ok: true,
          credential: {
            key: `grant:${grant}`,
            load: (db) => loadGrant(db, claims),
            shape: (principal) => forAccessToken(principal, claims),
          },
        };
      } catch (error) {
        return refusal(error);
      }
    },
  };
}

/**
 * A key set read from the database: a token signed with a `kid` not known yet (a key rotated in
 * on another replica) reloads it, at most once per `reloadMs`.
 */
export function reloadingKeySet(load: () => Promise<JSONWebKeySet>, reloadMs = 10_000): JWTVerifyGetKey {
  let current: { keys: JWTVerifyGetKey; loadedAt: number } | undefined;
  let loading: Promise<JWTVerifyGetKey> | undefined;
  const reload = () =>
    (loading ??= load()
      .then((jwks) => {
        current = { keys: createLocalJWKSet(jwks), loadedAt: Date.now() };
        return current.keys;
      })
      .finally(() => {
        loading = undefined;
      }));
  return async (header, token) => {
    const keys = current?.keys ?? (await reload());
    try {
      return await keys(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || Date.now() - (current?.loadedAt ?? 0) < reloadMs) throw error;
      return (await reload())(header, token);
    }
  };
}

/**
 * The issuer's keys (or its metadata naming them) could not be fetched: the token may well be
 * good, so the caller is told to retry (503 with Retry-After), not that its token is invalid.
 */
export class IssuerUnavailableError extends Error {
  override readonly name = 'IssuerUnavailableError';
}

/** Why jose refused a token, as the gateway tells the client. */
export function refusal(error: unknown): { ok: false; reason: AuthFailure } {
  if (error instanceof IssuerUnavailableError) throw error;
  if (error instanceof errors.JWTExpired) return { ok: false, reason: 'expired' };
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'aud')
    return { ok: false, reason: 'audience' };
  if (error instanceof errors.JOSEError) return { ok: false, reason: 'unknown' };
  throw error;
}
