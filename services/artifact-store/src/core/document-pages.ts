import type { DocumentUnit } from '@quarry/documents';
import { artifactErrors } from '../errors.js';

/**
 * A source document's units as stored ([[number, start, end], …] in the row, spans into the
 * artifact's text) and the page ranges the read tools take ("37", "30-40"). Pure.
 */

export type StoredUnits = readonly (readonly [number, number, number])[];

/** The stored units with their kind. */
export function unitsOf(kind: string, stored: StoredUnits): DocumentUnit[] {
  return stored.map(([number, start, end]) => ({ kind: kind as DocumentUnit['kind'], number, start, end }));
}

/** "37" or "30-40" as an inclusive range; a range that ends before it starts is refused. */
export function parsePages(pages: string): { from: number; to: number } {
  const match = /^([1-9][0-9]{0,5})(?:-([1-9][0-9]{0,5}))?$/.exec(pages);
  if (!match)
    throw artifactErrors.INVALID_ARGUMENT({
      field: 'pages',
      rule: 'must be a page number or a range, e.g. "37" or "30-40"',
    });
  const from = Number(match[1]);
  const to = match[2] === undefined ? from : Number(match[2]);
  if (to < from) throw artifactErrors.INVALID_ARGUMENT({ field: 'pages', rule: 'must not end before it starts' });
  return { from, to };
}

/**
 * The text of the units numbered `from` to `to` (one slice of the whole, blank lines between
 * them as stored), with their spans moved to offsets into that slice. A range that holds no unit
 * is PAGES_OUT_OF_RANGE.
 */
export function pagesOf(
  text: string,
  units: readonly DocumentUnit[],
  range: { from: number; to: number },
  pages: string,
): { text: string; units: DocumentUnit[]; label: string } {
  const picked = units.filter((u) => u.number >= range.from && u.number <= range.to);
  if (picked.length === 0)
    throw artifactErrors.PAGES_OUT_OF_RANGE({ pages, count: units.length, kind: units[0]?.kind ?? 'page' });
  const start = picked[0]!.start;
  const end = picked[picked.length - 1]!.end;
  const first = picked[0]!.number;
  const last = picked[picked.length - 1]!.number;
  return {
    text: text.slice(start, end),
    units: picked.map((u) => ({ ...u, start: u.start - start, end: u.end - start })),
    label: first === last ? String(first) : `${first}-${last}`,
  };
}
