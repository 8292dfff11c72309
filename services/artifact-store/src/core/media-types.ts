import type { MediaType } from '../enums.js';

/** The MIME type a research output is served with: text forms as text, Office documents as OOXML. */
const MIME_TYPES: Readonly<Record<MediaType, string>> = {
  conversation: 'text/plain; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
  html: 'text/html; charset=utf-8',
  word: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  excel: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  powerpoint: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

export function mimeTypeOf(mediaType: MediaType): string {
  return MIME_TYPES[mediaType];
}
