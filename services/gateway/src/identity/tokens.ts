import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Every personal access token starts with this, so scanners and log scrubbers can find one. */
export const TOKEN_PREFIX = 'qry_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_BYTES = 32;
/** 62^43 > 2^256, so 43 base62 digits always hold 32 bytes. */
const SECRET_CHARS = 43;
const TOKEN_PATTERN = new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{${SECRET_CHARS}}$`);

function base62(bytes: Uint8Array): string {
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(SECRET_CHARS, '0');
}

/** A new token: shown to its owner once; only `hash` is ever stored. */
export function generateToken(): { token: string; hash: Buffer; hint: string } {
  const token = TOKEN_PREFIX + base62(randomBytes(SECRET_BYTES));
  return { token, hash: hashToken(token), hint: tokenHint(token) };
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Enough of a token to recognise it in a list, far too little to use it. */
function tokenHint(token: string): string {
  return `${token.slice(0, TOKEN_PREFIX.length + 4)}…${token.slice(-4)}`;
}

export function isWellFormedToken(token: string): boolean {
  return TOKEN_PATTERN.test(token);
}

export function hashesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
