import type { artifactV1 } from '@quarry/contracts';
import type { CursorScope } from '@quarry/cursors';
import { pageText } from '../core/text-page.js';
import { artifactErrors } from '../errors.js';
import type { ArtifactServiceDeps } from './deps.js';

// The read tools' paging, shared: which offset a cursor stands for, the byte budget of a call,
// and a page with its cursor sealed for the same scope: cursorScope(tool, item id). The scope
// needs no org: another org's cursor names an item the caller cannot read, refused as not found.

const byteOffset = (value: unknown) =>
  Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : undefined;

/** The byte offset a read starts at: 0 without a cursor; a cursor not minted for `scope` is refused. */
export function readOffset(deps: ArtifactServiceDeps, scope: CursorScope, cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const offset = deps.cursors.open(cursor, scope, byteOffset);
  if (offset === undefined) throw artifactErrors.INVALID_CURSOR({});
  return offset;
}

/** The caller's maxBytes, else the configured budget. */
export function budgetOf(deps: ArtifactServiceDeps, maxBytes: number | undefined): number {
  return maxBytes ?? deps.reads.budgetBytes;
}

/** The page of `text` at `offset` within `budget` bytes, with the cursor of the next page. */
export function textPage(
  deps: ArtifactServiceDeps,
  scope: CursorScope,
  text: string,
  offset: number,
  budget: number,
): { text: string; page: artifactV1.TextPage } {
  const paged = pageText(text, offset, budget);
  const nextCursor = paged.nextOffset === undefined ? undefined : deps.cursors.seal(scope, paged.nextOffset);
  return { text: paged.text, page: { ...paged.page, nextCursor } };
}
