import { randomUUID, webcrypto } from 'node:crypto';
import type { Metadata } from '@grpc/grpc-js';
import { SignJWT, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { grpcErrors } from './errors.js';

/** Metadata key of the signed identity token (an HS256 JWT). */
export const IDENTITY_METADATA_KEY = 'x-quarry-identity';
/** Metadata key of the request id; correlation only, so it travels beside the token, unsigned. */
export const REQUEST_ID_METADATA_KEY = 'x-quarry-request-id';
/** The `aud` of every identity token: a token minted for something else is never accepted. */
const IDENTITY_AUDIENCE = 'quarry-grpc';

/** Who is calling: an end user acting through a token, or a Quarry service acting for itself. */
export interface Identity {
  kind: 'user' | 'service';
  orgId: string;
  userId?: string;
  tokenId?: string;
  serviceName?: string;
  requestId: string;
}

/**
 * The signed part of an Identity. `requestId` is left out on purpose: it changes on every
 * request, and keeping it out of the token lets one signed token serve every call a principal
 * makes for a fraction of its TTL. A request id grants nothing, so it needs no signature.
 */
export type Principal = Omit<Identity, 'requestId'>;

export interface IdentitySigner {
  /** A JWT for the principal part of `identity` (cached; see `createIdentitySigner`). */
  sign(identity: Principal | Identity): Promise<string>;
}

export interface IdentityVerifier {
  /** The principal in `jwt`, or a QuarryError IDENTITY_INVALID / IDENTITY_EXPIRED. */
  verify(jwt: string): Promise<Principal>;
}

export interface IdentitySignerOptions {
  /** Shared HS256 secret, at least 32 bytes (a string is taken as UTF-8). */
  key: string | Uint8Array;
  /** Who signs (`iss`), e.g. `gateway` or a service name; servers may restrict accepted issuers. */
  issuer: string;
  /** Token lifetime; short, since a captured token is a bearer credential until it expires. */
  ttlSeconds?: number;
  /** Clock in ms, for tests. */
  now?: () => number;
}

export interface IdentityVerifierOptions {
  key: string | Uint8Array;
  /** Accepted `iss` values; any issuer holding the key when omitted. */
  issuers?: readonly string[];
  clockToleranceSeconds?: number;
  now?: () => number;
}

const MIN_KEY_BYTES = 32;
const CACHE_LIMIT = 10_000;
/** Reuse a signed token for this fraction of its TTL, so a receiver always gets ≥ half its life. */
const REUSE_FRACTION = 0.5;

async function importKey(key: string | Uint8Array, usage: 'sign' | 'verify'): Promise<webcrypto.CryptoKey> {
  const bytes = typeof key === 'string' ? new TextEncoder().encode(key) : key;
  // Imported once: jose would re-import the raw key bytes on every call (ADR 0003 has the cost).
  return webcrypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);
}

function checkKeyLength(key: string | Uint8Array): void {
  const length = typeof key === 'string' ? Buffer.byteLength(key, 'utf8') : key.byteLength;
  if (length < MIN_KEY_BYTES) {
    throw new Error(`Identity key must be at least ${MIN_KEY_BYTES} bytes (got ${length})`);
  }
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** The principal in `claims` if it is well formed, else undefined. */
function principalFrom(claims: Record<string, unknown>): Principal | undefined {
  const { kind, orgId, userId, tokenId, serviceName } = claims;
  if (kind !== 'user' && kind !== 'service') return undefined;
  if (!isNonEmptyString(orgId)) return undefined;
  for (const optional of [userId, tokenId, serviceName]) {
    if (optional !== undefined && !isNonEmptyString(optional)) return undefined;
  }
  if (kind === 'user' && userId === undefined) return undefined;
  if (kind === 'service' && serviceName === undefined) return undefined;
  const principal: Principal = { kind, orgId: orgId as string };
  if (userId !== undefined) principal.userId = userId as string;
  if (tokenId !== undefined) principal.tokenId = tokenId as string;
  if (serviceName !== undefined) principal.serviceName = serviceName as string;
  return principal;
}

/** Remember at most CACHE_LIMIT entries, dropping the oldest first. */
function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, value);
}

/**
 * Signs identities for outgoing gRPC calls. Signed tokens are cached per principal and reused
 * for half their TTL, so the hot path is a map lookup instead of an HMAC over a JWT.
 */
export function createIdentitySigner(options: IdentitySignerOptions): IdentitySigner {
  checkKeyLength(options.key);
  const ttlSeconds = options.ttlSeconds ?? 60;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 2) throw new Error('ttlSeconds must be an integer ≥ 2');
  const now = options.now ?? Date.now;
  const key = importKey(options.key, 'sign');
  const cache = new Map<string, { token: Promise<string>; reuseUntil: number }>();

  async function mint(principal: Principal, issuedAtMs: number): Promise<string> {
    const iat = Math.floor(issuedAtMs / 1000);
    return new SignJWT({ ...principal })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(options.issuer)
      .setAudience(IDENTITY_AUDIENCE)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ttlSeconds)
      .sign(await key);
  }

  return {
    sign(identity) {
      const principal = principalFrom({ ...identity });
      if (!principal) {
        return Promise.reject(new Error('Identity needs kind, orgId, and userId (user) or serviceName (service)'));
      }
      const cacheKey = JSON.stringify([
        principal.kind,
        principal.orgId,
        principal.userId,
        principal.tokenId,
        principal.serviceName,
      ]);
      const at = now();
      const hit = cache.get(cacheKey);
      if (hit && at < hit.reuseUntil) return hit.token;
      const token = mint(principal, at);
      remember(cache, cacheKey, { token, reuseUntil: at + ttlSeconds * 1000 * REUSE_FRACTION });
      token.catch(() => {
        if (cache.get(cacheKey)?.token === token) cache.delete(cacheKey);
      });
      return token;
    },
  };
}

/**
 * Verifies identity tokens on the server. A token already verified is remembered until its
 * `exp`, so a principal's repeated calls (which carry the same cached token) cost one HMAC.
 */
export function createIdentityVerifier(options: IdentityVerifierOptions): IdentityVerifier {
  checkKeyLength(options.key);
  const now = options.now ?? Date.now;
  const toleranceSeconds = options.clockToleranceSeconds ?? 5;
  const key = importKey(options.key, 'verify');
  const verified = new Map<string, { principal: Principal; expiresAtMs: number }>();

  return {
    async verify(jwt) {
      const at = now();
      const hit = verified.get(jwt);
      if (hit) {
        if (at < hit.expiresAtMs) return { ...hit.principal };
        verified.delete(jwt);
        throw grpcErrors.IDENTITY_EXPIRED();
      }
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(jwt, await key, {
          algorithms: ['HS256'],
          audience: IDENTITY_AUDIENCE,
          issuer: options.issuers ? [...options.issuers] : undefined,
          requiredClaims: ['iss', 'iat', 'exp'],
          clockTolerance: toleranceSeconds,
          currentDate: new Date(at),
        }));
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) throw grpcErrors.IDENTITY_EXPIRED({ cause: error });
        throw grpcErrors.IDENTITY_INVALID({ cause: error });
      }
      const principal = principalFrom(payload);
      if (!principal) throw grpcErrors.IDENTITY_INVALID();
      remember(verified, jwt, { principal, expiresAtMs: ((payload.exp as number) + toleranceSeconds) * 1000 });
      return { ...principal };
    },
  };
}

const MAX_REQUEST_ID_LENGTH = 128;

/** Put the signed identity and the request id into outgoing metadata. */
export async function writeIdentity(metadata: Metadata, signer: IdentitySigner, identity: Identity): Promise<void> {
  metadata.set(IDENTITY_METADATA_KEY, await signer.sign(identity));
  metadata.set(REQUEST_ID_METADATA_KEY, identity.requestId);
}

/**
 * Read and verify the identity from incoming metadata. Rejects (QuarryError, UNAUTHENTICATED)
 * when the token is missing, forged, expired, or not a single value. A missing or oversized
 * request id is replaced by a fresh one rather than failing the call.
 */
export async function readIdentity(metadata: Metadata, verifier: IdentityVerifier): Promise<Identity> {
  const tokens = metadata.get(IDENTITY_METADATA_KEY);
  if (tokens.length === 0) throw grpcErrors.IDENTITY_MISSING();
  const [token] = tokens;
  if (tokens.length > 1 || typeof token !== 'string') throw grpcErrors.IDENTITY_INVALID();
  const principal = await verifier.verify(token);
  return { ...principal, requestId: requestIdFrom(metadata) };
}

/** The caller's request id, or a fresh one when it is missing or oversized. */
export function requestIdFrom(metadata: Metadata): string {
  const sent = metadata.get(REQUEST_ID_METADATA_KEY)[0];
  return typeof sent === 'string' && sent.length > 0 && sent.length <= MAX_REQUEST_ID_LENGTH ? sent : randomUUID();
}
