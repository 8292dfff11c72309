/** The formats a source document is converted from (decided from its bytes, not its name). */
export type DocumentFormat = 'pdf' | 'html' | 'docx' | 'pptx' | 'xlsx' | 'markdown' | 'text';

/** What the caller hands over: the bytes, and the name and media type it was given (hints only). */
export interface DocumentInput {
  bytes: Uint8Array;
  fileName?: string;
  mediaType?: string;
}

/**
 * A part of the document a citation can point to: a PDF page, a slide, a sheet, or a section of a
 * format without pages. `start`/`end` are character offsets into `ConvertedDocument.text`
 * (start inclusive, end exclusive); `number` counts from 1.
 */
export interface DocumentUnit {
  kind: 'page' | 'slide' | 'sheet' | 'section';
  number: number;
  start: number;
  end: number;
}

/** Where something lies on a PDF page, in PDF points from the page's bottom left corner. */
export interface DocumentBox {
  left: number;
  bottom: number;
  right: number;
  top: number;
}

/**
 * An embedded image, with the unit it sits on and the caption found near it. `width` and
 * `height` are those of `bytes` (a PDF image larger than `maxFigureSide` is scaled down).
 */
export interface DocumentFigure {
  unit: number;
  caption?: string;
  mediaType: string;
  bytes: Uint8Array;
  width: number;
  height: number;
  /** Where it is painted (PDF only). */
  box?: DocumentBox;
}

/**
 * A table as rows of cell text: one the format states (a DOCX or HTML table, a sheet), or one
 * detected in a PDF's text layout (text aligned in rows and columns).
 */
export interface DocumentTable {
  unit: number;
  caption?: string;
  rows: string[][];
  /** Where it lies (PDF only). */
  box?: DocumentBox;
}

export interface ConvertedDocument {
  format: DocumentFormat;
  /** Sniffed from the bytes, not trusted from the caller. */
  mediaType: string;
  title?: string;
  author?: string;
  publishedAt?: string;
  canonicalUrl?: string;
  language?: string;
  /** E.g. a PDF's info dictionary and its page count. */
  metadata: Record<string, string>;
  /** The whole document as text (markdown where the format has structure), units separated by blank lines. */
  text: string;
  units: DocumentUnit[];
  figures: DocumentFigure[];
  tables: DocumentTable[];
  /** What was skipped or could not be read, e.g. 'no text layer on pages 3-5'. */
  warnings: string[];
}
