import { createHmac } from 'node:crypto';
import { openClaims, sealClaims } from './signed-claims.js';

/**
 * A verify_citations handle: signed claims naming the kept verification (extraction.citation_
 * verifications, `ref`), the org and principal it is for, and its expiry — like a submission
 * handle (core/handle.ts), so a handle that is not the caller's own, live one is refused before
 * anything is read. Its own prefix: an extraction handle is never taken for one, nor the reverse.
 *
 *   qv1.<base64url(JSON claims)>.<base64url(HMAC-SHA256 over "qv1.<claims>")>
 */

const PREFIX = 'qv1';
const MAX_CHARS = 2048;

export interface VerificationHandleClaims {
  org: string;
  who: string;
  /** Expiry, seconds since the epoch. */
  exp: number;
  /** The kept verification's id. */
  ref: string;
}

function mac(key: Buffer): (body: string) => Buffer {
  return (body) => createHmac('sha256', key).update(`verification\u0000${body}`).digest();
}

export function signVerificationHandle(claims: VerificationHandleClaims, key: Buffer): string {
  return sealClaims(PREFIX, claims, mac(key));
}

/** The claims when the handle is ours, untampered, for this org and principal; undefined otherwise. */
export function openVerificationHandle(
  handle: string,
  key: Buffer,
  expect: { org: string; who: string },
): VerificationHandleClaims | undefined {
  const claims = openClaims(PREFIX, handle, MAX_CHARS, mac(key)) as VerificationHandleClaims | undefined;
  if (!claims || typeof claims.ref !== 'string') return undefined;
  if (claims.org !== expect.org || claims.who !== expect.who) return undefined;
  return claims;
}
