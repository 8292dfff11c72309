/** One page of a log, newest first; `before` is where the next (older) page starts. */
export interface LogPage<T> {
  rows: T[];
  /** The id to pass as `before` for the next page; undefined on the last one. */
  before?: string;
}

/** Page sizes a page or an export may ask for. */
export const PAGE_SIZE = 50;
export const EXPORT_LIMIT = 10_000;

/** A keyset position (a log row's id) from a query string; undefined when absent or malformed. */
export function positionOf(value: unknown): string | undefined {
  return typeof value === 'string' && /^[1-9][0-9]{0,18}$/.test(value) ? value : undefined;
}

/** A date filter (yyyy-mm-dd or an ISO timestamp) from a query string; undefined when unusable. */
export function dateOf(value: unknown): Date | undefined {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}([T ][\d:.]+Z?)?$/.test(value)) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** Cuts one extra row fetched to learn whether there is a next page. */
export function pageOf<T extends { id: string }>(rows: T[], limit: number): LogPage<T> {
  if (rows.length <= limit) return { rows };
  const kept = rows.slice(0, limit);
  return { rows: kept, before: kept[kept.length - 1]!.id };
}
