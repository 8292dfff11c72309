/**
 * Long text read back in pages, each within a byte budget (docs/adr/0024-read-back-budget-and-urls.md).
 * Offsets and sizes are bytes of UTF-8, the unit a budget is about; a page never splits a
 * character, so every page is valid text and the pages joined are the whole text.
 */

/** Where a page sits in the whole text (proto TextPage without the cursor, which the handler seals). */
export interface TextPageInfo {
  totalBytes: number;
  offset: number;
  returnedBytes: number;
}

export interface PagedText {
  text: string;
  page: TextPageInfo;
  /** Where the next page starts, when more text follows. */
  nextOffset?: number;
}

const isContinuation = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80;

/**
 * The page of `text` that starts at byte `offset` and holds at most `budget` bytes. A budget too
 * small for the next character gives an empty page whose nextOffset is where it started.
 */
export function pageText(text: string, offset: number, budget: number): PagedText {
  const bytes = Buffer.from(text, 'utf8');
  let start = Math.min(Math.max(offset, 0), bytes.length);
  while (isContinuation(bytes[start])) start++;
  let end = Math.min(start + Math.max(budget, 0), bytes.length);
  while (end > start && end < bytes.length && isContinuation(bytes[end])) end--;
  const page = { totalBytes: bytes.length, offset: start, returnedBytes: end - start };
  return {
    text: bytes.subarray(start, end).toString('utf8'),
    page,
    ...(end < bytes.length ? { nextOffset: end } : {}),
  };
}
