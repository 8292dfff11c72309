import { createHmac, timingSafeEqual } from 'node:crypto';

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

function mac(key: Buffer, body: string): Buffer {
  return createHmac('sha256', key).update(`verification\u0000${body}`).digest();
}

export function signVerificationHandle(claims: VerificationHandleClaims, key: Buffer): string {
  const body = `${PREFIX}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${body}.${mac(key, body).toString('base64url')}`;
}

/** The claims when the handle is ours, untampered, for this org and principal; undefined otherwise. */
export function openVerificationHandle(
  handle: string,
  key: Buffer,
  expect: { org: string; who: string },
): VerificationHandleClaims | undefined {
  if (handle.length > MAX_CHARS) return undefined;
  const parts = handle.trim().split('.');
  if (parts.length !== 3 || parts[0] !== PREFIX) return undefined;
  const body = `${parts[0]}.${parts[1]}`;
  const given = Buffer.from(parts[2]!, 'base64url');
  const wanted = mac(key, body);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return undefined;
  let claims: VerificationHandleClaims;
  try {
    claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as VerificationHandleClaims;
  } catch {
    return undefined;
  }
  if (typeof claims !== 'object' || claims === null || typeof claims.ref !== 'string') return undefined;
  if (claims.org !== expect.org || claims.who !== expect.who) return undefined;
  return claims;
}
