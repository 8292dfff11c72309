import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { CursorScope } from './cursor-scope.js';

/** Reads a position back from a cursor's JSON: the position, or undefined when it is not one of this kind. */
export type PositionReader<P> = (value: unknown) => P | undefined;

/**
 * Page cursors, opaque to the client and sealed with an HMAC (ADR 0024), so a cursor is only
 * ever one this codec minted for the same scope: a forged, edited, truncated or misapplied cursor
 * is refused rather than read from an arbitrary position.
 */
export interface CursorCodec {
  /** A cursor for `position` (anything JSON holds: an offset, a KeysetPosition, positions of several lists) within `scope`. */
  seal(scope: CursorScope, position: unknown): string;
  /**
   * The position in `cursor`, when this codec sealed it for `scope` and `read` accepts it;
   * undefined for anything else: not a cursor, edited, sealed for another scope or purpose,
   * under another identity key, or by an older codec. The caller answers its own "invalid cursor".
   */
  open<P>(cursor: string, scope: CursorScope, read: PositionReader<P>): P | undefined;
}

/** A 128-bit tag: forging one is out of reach, and the cursor stays short. */
const TAG_BYTES = 16;
/** Longer than any cursor a codec mints (a merged list cursor holds a few inner ones); longer input is not read. */
const MAX_CURSOR_CHARS = 4096;

/**
 * The cursor codec of one purpose (a service, e.g. `plan-engine`), keyed by a key derived from
 * the identity key (HKDF-SHA256): every replica accepts every other's cursors, a restart keeps
 * them valid, and no other purpose's cursors open. Changing QUARRY_IDENTITY_KEY invalidates
 * outstanding cursors (clients start over).
 *
 * A cursor is `base64url(JSON position).base64url(tag)`, the tag being HMAC-SHA256 over the body
 * and the scope, truncated to 128 bits.
 */
export function createCursorCodec(identityKey: string | Uint8Array, purpose: string): CursorCodec {
  const key = Buffer.from(hkdfSync('sha256', identityKey, 'quarry', `cursors v1: ${purpose}`, 32));
  const tag = (body: string, scope: CursorScope) =>
    createHmac('sha256', key)
      .update(`${body}.${scope}`) // the body holds no '.', so (body, scope) is read back one way only
      .digest()
      .subarray(0, TAG_BYTES)
      .toString('base64url');
  return {
    seal(scope, position) {
      const body = Buffer.from(JSON.stringify(position)).toString('base64url');
      return `${body}.${tag(body, scope)}`;
    },
    open(cursor, scope, read) {
      if (cursor.length > MAX_CURSOR_CHARS) return undefined;
      const [body, given, extra] = cursor.split('.');
      if (!body || given === undefined || extra !== undefined) return undefined;
      const expected = Buffer.from(tag(body, scope));
      const actual = Buffer.from(given);
      if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return undefined;
      try {
        return read(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
      } catch {
        return undefined;
      }
    },
  };
}
