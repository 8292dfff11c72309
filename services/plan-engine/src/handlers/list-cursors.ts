import { type CursorScope, type KeysetPosition, readKeyset } from '@quarry/cursors';
import { planErrors } from '../errors.js';
import type { PlanHandlerDeps } from './plan-transaction.js';

// list_active_plans' and list_plans' cursors: a keyset position sealed for the rpc, the caller's
// org and the filters (cursorScope), so a cursor of the other rpc, of other filters or of another
// org is INVALID_CURSOR, as are forged ones and the unsigned cursors of earlier versions.

/** Where the page starts: after the position `cursor` holds; undefined without a cursor. */
export function listAfter(
  deps: PlanHandlerDeps,
  scope: CursorScope,
  cursor: string | undefined,
): KeysetPosition | undefined {
  if (!cursor) return undefined;
  const after = deps.cursors.open(cursor, scope, readKeyset);
  if (!after) throw planErrors.INVALID_CURSOR();
  return after;
}

/** The cursor of the page that starts at `next`; none on the last page. */
export function listCursor(
  deps: PlanHandlerDeps,
  scope: CursorScope,
  next: KeysetPosition | undefined,
): string | undefined {
  return next && deps.cursors.seal(scope, next);
}
