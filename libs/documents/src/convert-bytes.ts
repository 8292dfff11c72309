import type { ConversionLimits } from './conversion-limits.js';
import { decodeDeclaredCharset, decodeText, type DecodedText } from './core/decode-text.js';
import { sniffKind } from './core/sniff-format.js';
import { convertText } from './core/text-document.js';
import type { ConvertedDocument, DocumentInput } from './document.js';

/**
 * Convert in the current thread: sniff the bytes, then hand them to the reader of their format.
 * Runs inside the conversion worker (conversion-worker.ts); callers use convertDocument.
 */
export async function convertBytes(
  input: DocumentInput,
  limits: Readonly<ConversionLimits>,
): Promise<ConvertedDocument> {
  let decoded: DecodedText | undefined | null = null;
  const decode = () => (decoded === null ? (decoded = decodeText(input.bytes)) : decoded);
  const kind = sniffKind(input.bytes, () => decode()?.text, input);
  const warnings: string[] = [];
  const text = (result = decode()!) => {
    if (result.encoding === 'windows-1252') warnings.push('the text is not UTF-8; it was read as Windows-1252');
    return result.text;
  };
  switch (kind) {
    case 'text':
    case 'markdown':
      return convertText(text(), kind, warnings);
    // Each reader is loaded when its format comes: the worker is new for every document, and
    // loading pdf.js, mammoth or Readability for a text file would be most of its cost.
    case 'html': {
      const { convertHtml } = await import('./formats/html.js');
      return convertHtml(text(decodeDeclaredCharset(input.bytes, decode()!)), warnings);
    }
    case 'pdf': {
      const { convertPdf } = await import('./formats/pdf.js');
      return convertPdf(input.bytes, limits);
    }
    case 'zip': {
      const { convertOffice } = await import('./formats/office.js');
      return convertOffice(input.bytes, limits);
    }
  }
}
