/** The stable codes a conversion fails with (callers map them to their own tool or import errors). */
export const DOCUMENT_ERROR_CODES = [
  'UNSUPPORTED_FORMAT',
  'ENCRYPTED',
  'CORRUPT',
  'NO_TEXT_LAYER',
  'TOO_LARGE',
  'TOO_MANY_UNITS',
  'ARCHIVE_BOMB',
  'IMAGE_TOO_LARGE',
  'TIMEOUT',
  'OUT_OF_MEMORY',
] as const;

export type DocumentErrorCode = (typeof DOCUMENT_ERROR_CODES)[number];

/** Why a document could not be converted; `message` is written for the person who sent it. */
export class DocumentError extends Error {
  override readonly name = 'DocumentError';

  constructor(
    readonly code: DocumentErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A DocumentError sent across the worker boundary (structured clone drops the class). */
export function isDocumentErrorCode(value: unknown): value is DocumentErrorCode {
  return typeof value === 'string' && (DOCUMENT_ERROR_CODES as readonly string[]).includes(value);
}
