import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Cursors of the read and list tools: opaque to the client, and sealed with an HMAC so a cursor
 * is only ever one this service minted for the same tool, item (or filters) and position. A
 * forged, edited or misapplied cursor is refused rather than read from an arbitrary offset.
 * The key is derived from the service's identity key, so every replica accepts every other's
 * cursors and a restart keeps them valid.
 */
export interface CursorCodec {
  /** A cursor for `position` within `scope` (e.g. `artifact:<id>` or a list's filter hash). */
  seal(scope: string, position: string | number): string;
  /** The position a cursor holds, when it is a genuine cursor of `scope`; undefined otherwise. */
  open(cursor: string, scope: string): string | number | undefined;
}

const MAC_LENGTH = 16;

export function createCursorCodec(identityKey: string): CursorCodec {
  const key = createHmac('sha256', identityKey).update('quarry.artifact-store.read-cursor.v1').digest();
  const mac = (body: string) => createHmac('sha256', key).update(body).digest().subarray(0, MAC_LENGTH);
  return {
    seal(scope, position) {
      const body = Buffer.from(JSON.stringify({ s: scope, p: position })).toString('base64url');
      return `${body}.${mac(body).toString('base64url')}`;
    },
    open(cursor, scope) {
      const [body, tag, extra] = cursor.split('.');
      if (!body || !tag || extra !== undefined) return undefined;
      const given = Buffer.from(tag, 'base64url');
      if (given.length !== MAC_LENGTH || !timingSafeEqual(given, mac(body))) return undefined;
      try {
        const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { s?: unknown; p?: unknown };
        if (payload.s !== scope) return undefined;
        return typeof payload.p === 'string' || typeof payload.p === 'number' ? payload.p : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
