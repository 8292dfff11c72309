import type { MediaType } from '../enums.js';
import { artifactErrors } from '../errors.js';

/** Text (UTF-8) and JSON bodies: 1 MiB. Binary documents: 2 MiB decoded (≈ 2.8 MB of base64). */
export const MAX_TEXT_BYTES = 1024 * 1024;
export const MAX_BINARY_BYTES = 2 * 1024 * 1024;

const BINARY: ReadonlySet<MediaType> = new Set(['word', 'excel', 'powerpoint']);
// Standard alphabet, padded, in whole quanta (line breaks are removed first).
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function isBinary(mediaType: MediaType): boolean {
  return BINARY.has(mediaType);
}

function limitText(field: string, text: string): void {
  const size = Buffer.byteLength(text, 'utf8');
  if (size > MAX_TEXT_BYTES)
    throw artifactErrors.CONTENT_TOO_LARGE({ field, size, limit: '1 MiB (1048576 bytes) of UTF-8' });
}

/** A JSON object's serialization, refused when it is over the text limit. */
export function jsonBody(field: string, value: unknown): string {
  const json = JSON.stringify(value ?? {});
  limitText(field, json);
  return json;
}

/** Validated text for the text limit (contentText and the like). */
export function textBody(field: string, text: string): string {
  limitText(field, text);
  return text;
}

/**
 * A research output's body: its text for text forms, its decoded bytes for binary documents
 * (refusing anything that is not strict base64), each within its size limit.
 */
export function outputBody(
  mediaType: MediaType,
  content: string,
): { text: string; size: number } | { bytes: Buffer; size: number } {
  if (!isBinary(mediaType)) {
    limitText('content', content);
    return { text: content, size: Buffer.byteLength(content, 'utf8') };
  }
  const compact = content.replace(/\r?\n/g, '');
  if (compact.length === 0 || !BASE64.test(compact)) throw artifactErrors.INVALID_BASE64({ mediaType });
  const bytes = Buffer.from(compact, 'base64');
  if (bytes.length > MAX_BINARY_BYTES)
    throw artifactErrors.CONTENT_TOO_LARGE({
      field: 'content',
      size: bytes.length,
      limit: '2 MiB (2097152 bytes) decoded',
    });
  return { bytes, size: bytes.length };
}
