/** Largest source text accepted, in UTF-8 bytes (~50 pages of prose). */
export const MAX_SOURCE_TEXT_BYTES = 200 * 1024;

/** Why a source text cannot be extracted from. */
export class SourceTextRejectedError extends Error {
  override readonly name = 'SourceTextRejectedError';
  constructor(
    readonly rule: 'not_text' | 'empty' | 'too_large',
    message: string,
  ) {
    super(`Source text rejected (${rule}): ${message}`);
  }
}

/** The source text if it can be extracted from; throws SourceTextRejectedError otherwise. */
export function checkSourceText(text: unknown): string {
  if (typeof text !== 'string') throw new SourceTextRejectedError('not_text', 'the source must be a string of text.');
  if (text.trim().length === 0)
    throw new SourceTextRejectedError('empty', 'the source text is empty; there is nothing to extract from.');
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_SOURCE_TEXT_BYTES) {
    throw new SourceTextRejectedError(
      'too_large',
      `it is ${bytes} bytes (UTF-8); the limit is ${MAX_SOURCE_TEXT_BYTES} bytes (200 KiB). Extract from the relevant part of the text, or split it into several extractions.`,
    );
  }
  return text;
}
