import type { PositionReader } from './cursor-codec.js';

/**
 * Where a keyset page ended, so the next one continues strictly after it: the last row's
 * ordering timestamp as PostgreSQL printed it (`column::text`, every microsecond kept, compared
 * back with `::timestamptz`) and its id, the tie-break. A JavaScript Date would drop the
 * microseconds and skip rows that share the millisecond.
 */
export interface KeysetPosition {
  at: string;
  id: string;
}

/** Reads a KeysetPosition back from a cursor (for `CursorCodec.open`). */
export const readKeyset: PositionReader<KeysetPosition> = (value) => {
  if (typeof value !== 'object' || value === null) return undefined;
  const { at, id } = value as Partial<Record<keyof KeysetPosition, unknown>>;
  return typeof at === 'string' && at !== '' && typeof id === 'string' && id !== '' ? { at, id } : undefined;
};
