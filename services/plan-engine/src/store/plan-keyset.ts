import type { KeysetPosition } from '@quarry/cursors';
import { sql } from 'kysely';

// The plan lists' order, most recently updated first, ties by id, paged by keyset on
// (updated_at, id) of `plan.research_plans as p`. updated_at travels as PostgreSQL's own text:
// the stall sweep stamps it with now(), and a JavaScript Date would drop its microseconds and
// skip the plans updated in the same millisecond as a page's last one.

/** updated_at as PostgreSQL prints it, selected beside the plan's columns. */
export const updatedAtText = sql<string>`p.updated_at::text`.as('updated_at_text');

/** The plans strictly after `after` in the lists' order. */
export const afterPosition = (after: KeysetPosition) =>
  sql<boolean>`(p.updated_at, p.id) < (${after.at}::timestamptz, ${after.id}::uuid)`;

/** Where the next page starts: after the last plan shown, when more follow. */
export function nextPosition(
  shown: readonly { id: string; updated_at_text: string }[],
  more: boolean,
): KeysetPosition | undefined {
  const last = shown.at(-1);
  return more && last ? { at: last.updated_at_text, id: last.id } : undefined;
}
