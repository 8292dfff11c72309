import { planErrors } from '../errors.js';

/** Where a page of list_active_plans ended: the last plan's (updated_at, id), the order of the list. */
export interface PageKey {
  updatedAt: string;
  id: string;
}

const UUID = /^[0-9a-f-]{36}$/;

/** An opaque cursor for the page after `last`. */
export function encodeCursor(last: { updated_at: Date; id: string }): string {
  return Buffer.from(JSON.stringify({ u: last.updated_at.toISOString(), i: last.id })).toString('base64url');
}

/** The key a cursor from `encodeCursor` holds; anything else is INVALID_CURSOR (never a query error). */
export function decodeCursor(cursor: string): PageKey {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { u?: unknown; i?: unknown };
    if (
      typeof parsed.u === 'string' &&
      !Number.isNaN(Date.parse(parsed.u)) &&
      typeof parsed.i === 'string' &&
      UUID.test(parsed.i)
    ) {
      return { updatedAt: parsed.u, id: parsed.i };
    }
  } catch {
    // not base64url JSON: refused below like any other foreign cursor
  }
  throw planErrors.INVALID_CURSOR();
}
