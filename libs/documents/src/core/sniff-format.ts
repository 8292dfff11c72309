import { DocumentError } from '../document-error.js';

/** What the bytes are, before a format-specific reader looks inside (a zip is opened to tell Office files apart). */
export type SniffedKind = 'pdf' | 'zip' | 'html' | 'markdown' | 'text';

/** The caller's name and media type: hints that choose between text kinds only, never over the bytes. */
export interface SniffHints {
  fileName?: string;
  mediaType?: string;
}

const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const startsWith = (bytes: Uint8Array, prefix: Uint8Array, at = 0) =>
  bytes.length >= at + prefix.length && prefix.every((b, i) => bytes[at + i] === b);

const PDF = ascii('%PDF-');
const ZIP = ascii('PK\x03\x04');
const EMPTY_ZIP = ascii('PK\x05\x06');
const CFB = Uint8Array.of(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1);
// An encrypted Office file is not a zip but a compound file holding an "EncryptedPackage" stream,
// whose name is stored in UTF-16LE.
const ENCRYPTED_PACKAGE = Uint8Array.from([...'EncryptedPackage'].flatMap((c) => [c.charCodeAt(0), 0]));

/** Binary formats recognised only to name them in the refusal. */
const OTHER_BINARIES: [string, Uint8Array][] = [
  ['a PNG image', Uint8Array.of(0x89, 0x50, 0x4e, 0x47)],
  ['a JPEG image', Uint8Array.of(0xff, 0xd8, 0xff)],
  ['a GIF image', ascii('GIF8')],
  ['a gzip archive', Uint8Array.of(0x1f, 0x8b)],
  ['a 7-Zip archive', ascii("7z\xbc\xaf'\x1c")],
  ['a RAR archive', ascii('Rar!')],
  ['an EPUB or other RIFF/WebP file', ascii('RIFF')],
  ['a PostScript file', ascii('%!PS')],
  ['an RTF document', ascii('{\\rtf')],
];

// The WHATWG MIME Sniffing Standard's HTML patterns: after leading whitespace, one of these
// (case-insensitive) followed by a space or '>'.
const HTML_OPENERS = [
  '<!DOCTYPE HTML',
  '<HTML',
  '<HEAD',
  '<SCRIPT',
  '<IFRAME',
  '<H1',
  '<DIV',
  '<FONT',
  '<TABLE',
  '<A',
  '<STYLE',
  '<TITLE',
  '<B',
  '<BODY',
  '<BR',
  '<P',
  '<!--',
];

const PDF_SIGNATURE_WINDOW = 1024;

/** Where `needle` first occurs in `bytes` within `[0, limit)`, or -1. */
function indexOf(bytes: Uint8Array, needle: Uint8Array, limit = bytes.length): number {
  const end = Math.min(limit, bytes.length) - needle.length;
  for (let i = 0; i <= end; i++) if (startsWith(bytes, needle, i)) return i;
  return -1;
}

function looksLikeHtml(text: string): boolean {
  const head = text.slice(0, 512).trimStart().toUpperCase();
  return HTML_OPENERS.some((opener) => {
    if (!head.startsWith(opener)) return false;
    const next = head.charAt(opener.length);
    return opener === '<!--' || next === '>' || next === ' ' || next === '\t' || next === '\n' || next === '\r';
  });
}

const MARKDOWN_NAME = /\.(md|markdown|mdown|mkd)$/i;
const HTML_NAME = /\.(html?|xhtml)$/i;

function hintedAs(hints: SniffHints, type: RegExp, name: RegExp): boolean {
  return type.test(hints.mediaType ?? '') || name.test(hints.fileName ?? '');
}

/**
 * Decide what `bytes` are from their content. The caller's name and media type only choose
 * between readings of text (HTML named .html that does not open with a tag, Markdown named .md),
 * so a PDF named .txt is read as a PDF and a PNG named .pdf is refused.
 */
export function sniffKind(bytes: Uint8Array, text: () => string | undefined, hints: SniffHints): SniffedKind {
  if (bytes.length === 0) throw new DocumentError('UNSUPPORTED_FORMAT', 'the document is empty');
  if (indexOf(bytes, PDF, PDF_SIGNATURE_WINDOW) >= 0) return 'pdf';
  if (startsWith(bytes, ZIP)) return 'zip';
  if (startsWith(bytes, EMPTY_ZIP)) throw new DocumentError('CORRUPT', 'the document is an empty zip archive');
  if (startsWith(bytes, CFB)) {
    if (indexOf(bytes, ENCRYPTED_PACKAGE) >= 0) {
      throw new DocumentError('ENCRYPTED', 'the Office document is password-protected; send it without the password');
    }
    throw new DocumentError(
      'UNSUPPORTED_FORMAT',
      'the document is a legacy Office file (.doc, .xls or .ppt); save it as .docx, .xlsx or .pptx',
    );
  }
  for (const [what, magic] of OTHER_BINARIES) {
    if (startsWith(bytes, magic)) throw new DocumentError('UNSUPPORTED_FORMAT', `the document is ${what}`);
  }
  const decoded = text();
  if (decoded === undefined) {
    throw new DocumentError('UNSUPPORTED_FORMAT', 'the document is binary data of a format that is not converted');
  }
  if (looksLikeHtml(decoded)) return 'html';
  if (hintedAs(hints, /^\s*(text\/html|application\/xhtml\+xml)\b/i, HTML_NAME) && /<[a-z!][^>]*>/i.test(decoded)) {
    return 'html';
  }
  if (hintedAs(hints, /^\s*text\/(x-)?markdown\b/i, MARKDOWN_NAME)) return 'markdown';
  return /^\s*#{1,6}\s+\S/.test(decoded) ? 'markdown' : 'text';
}
