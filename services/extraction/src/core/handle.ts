import { createHash, createHmac } from 'node:crypto';
import { openClaims, sealClaims } from './signed-claims.js';

/**
 * A submission handle: what extract_data gives the caller's model when it is to fill the schema
 * itself, and what submit_extraction takes back. The handle carries its claims, signed
 * (HMAC-SHA256, key from config), so a handle that is not the caller's own, live one is refused
 * before anything is read; the schema and source text it was issued for are kept in PostgreSQL
 * under `ref` (store/pending-submissions.ts), so the caller sends back only its data:
 *
 *   qx1.<base64url(JSON claims)>.<base64url(HMAC over "qx1.<claims>")>
 *
 * The claims bind the handle to the org and the principal (user and token) that asked, to the
 * SHA-256 of the exact source text and of the schema's canonical JSON, and to an expiry; they
 * carry where the result belongs (plan, step, URL, page, section, schema version) and a random
 * nonce, which is the result's idempotency key. Signed, not encrypted: the caller may read them;
 * they hold only what the caller sent (and hashes of it).
 */

const PREFIX = 'qx1';
/** Longest handle read (ours are a few hundred characters); longer is refused before any work. */
export const MAX_HANDLE_CHARS = 8192;

export interface HandleClaims {
  /** Org that asked. */
  org: string;
  /** The principal that asked: a hash of user id and token id (the same identity must submit). */
  who: string;
  /** Expiry, seconds since the epoch. */
  exp: number;
  /** Random, per handle: the stored result's idempotency key. */
  nonce: string;
  /** The pending submission keeping the schema and source (absent on handles issued before it existed). */
  ref?: string;
  schemaHash: string;
  /** SHA-256 (hex) of the exact source text. */
  sourceHash: string;
  /** The source artifact, when the text came from one (submit reloads it). */
  artifactId?: string;
  schemaVersion: number;
  planId?: string;
  stepId?: string;
  sourceUrl?: string;
  page?: number;
  section?: string;
}

/** Whom a handle is for: the org and a digest of the user and token ids (absent ones as ""). */
export function principalDigest(identity: { userId?: string; tokenId?: string; serviceName?: string }): string {
  return createHash('sha256')
    .update(`${identity.userId ?? ''}\u0000${identity.tokenId ?? ''}\u0000${identity.serviceName ?? ''}`)
    .digest('base64url')
    .slice(0, 22);
}

function mac(key: Buffer): (body: string) => Buffer {
  return (body) => createHmac('sha256', key).update(body).digest();
}

export function signHandle(claims: HandleClaims, key: Buffer): string {
  return sealClaims(PREFIX, claims, mac(key));
}

/**
 * The claims of `handle` when it is ours, untampered, unexpired and for this org and principal;
 * undefined otherwise — every failure looks the same to the caller (like a handle that never
 * existed), so a handle tells a stranger nothing.
 */
export function openHandle(
  handle: string,
  key: Buffer,
  expect: { org: string; who: string; nowSeconds: number },
): HandleClaims | undefined {
  const claims = openClaims(PREFIX, handle, MAX_HANDLE_CHARS, mac(key)) as HandleClaims | undefined;
  if (!claims) return undefined;
  if (claims.org !== expect.org || claims.who !== expect.who) return undefined;
  if (typeof claims.exp !== 'number' || claims.exp <= expect.nowSeconds) return undefined;
  return claims;
}

/** The idempotency key a handle's result is stored under (the nonce, namespaced). */
export function idempotencyKeyOf(claims: HandleClaims): string {
  return `submit:${claims.nonce}`;
}
