import type { artifactV1 } from '@quarry/contracts';
import { pageText } from '../core/text-page.js';
import { artifactErrors } from '../errors.js';
import type { ArtifactServiceDeps } from './deps.js';

// The read tools' paging, shared: which offset a cursor stands for, the byte budget of a call,
// and a page with its cursor sealed for the same scope (tool and item).

/** The byte offset a read starts at: 0 without a cursor; a cursor not minted for `scope` is refused. */
export function readOffset(deps: ArtifactServiceDeps, scope: string, cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const position = deps.reads.cursors.open(cursor, scope);
  if (typeof position !== 'number') throw artifactErrors.INVALID_CURSOR({});
  return position;
}

/** The caller's maxBytes, else the configured budget. */
export function budgetOf(deps: ArtifactServiceDeps, maxBytes: number | undefined): number {
  return maxBytes ?? deps.reads.budgetBytes;
}

/** The page of `text` at `offset` within `budget` bytes, with the cursor of the next page. */
export function textPage(
  deps: ArtifactServiceDeps,
  scope: string,
  text: string,
  offset: number,
  budget: number,
): { text: string; page: artifactV1.TextPage } {
  const paged = pageText(text, offset, budget);
  const nextCursor = paged.nextOffset === undefined ? undefined : deps.reads.cursors.seal(scope, paged.nextOffset);
  return { text: paged.text, page: { ...paged.page, nextCursor } };
}
