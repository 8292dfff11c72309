import { type CursorScope, type KeysetPosition, readKeyset } from '@quarry/cursors';
import { artifactErrors } from '../errors.js';
import type { ArtifactServiceDeps } from './deps.js';

// The list rpcs page most recent first by keyset (created_at, id), so pages neither skip nor
// repeat rows while others are stored. Their cursors are sealed (ADR 0024) and bound to the rpc,
// the org and the filters: the same position means nothing under other filters.

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/** A row's keyset position: its created_at as PostgreSQL printed it (full precision) and its id. */
interface KeysetRow {
  created_at_text: string;
  id: string;
}

/** The position a cursor continues after; undefined for the first page. A foreign or forged cursor is refused. */
export function keysetAfter(
  deps: ArtifactServiceDeps,
  scope: CursorScope,
  cursor: string | undefined,
): KeysetPosition | undefined {
  if (cursor === undefined) return undefined;
  const after = deps.cursors.open(cursor, scope, readKeyset);
  if (!after) throw artifactErrors.INVALID_CURSOR({});
  return after;
}

/** The page size asked for, held to 1..100 (20 when not given). Fetch one row more: see keysetPage. */
export function keysetLimit(limit: number | undefined): number {
  return Math.min(Math.max(limit ?? DEFAULT_LIMIT, 1), MAX_LIMIT);
}

/** The page out of `limit + 1` fetched rows, and the cursor of the next page when that extra row came. */
export function keysetPage<Row extends KeysetRow>(
  deps: ArtifactServiceDeps,
  scope: CursorScope,
  rows: readonly Row[],
  limit: number,
): { page: Row[]; nextCursor: string | undefined } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > limit && last
      ? deps.cursors.seal(scope, { at: last.created_at_text, id: last.id } satisfies KeysetPosition)
      : undefined;
  return { page, nextCursor };
}
