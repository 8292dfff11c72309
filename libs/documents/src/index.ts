// @quarry/documents: source documents (PDF, HTML, DOCX, PPTX, XLSX, Markdown, plain text) to
// text with page, slide, sheet or section spans, figures and tables, converted in a worker
// thread with memory and time limits (docs/adr/0050-documents-in.md).
export { convertDocument, type ConversionOptions } from './convert-document.js';
export { DEFAULT_CONVERSION_LIMITS, type ConversionLimits } from './conversion-limits.js';
export { DocumentError, type DocumentErrorCode } from './document-error.js';
export type {
  ConvertedDocument,
  DocumentBox,
  DocumentFigure,
  DocumentFormat,
  DocumentInput,
  DocumentTable,
  DocumentUnit,
} from './document.js';
