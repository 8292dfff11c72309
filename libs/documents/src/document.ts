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

/** An embedded image, with the unit it sits on and the caption found near it. */
export interface DocumentFigure {
  unit: number;
  caption?: string;
  mediaType: string;
  bytes: Uint8Array;
  width: number;
  height: number;
}

/** A table the format states as one (a DOCX or HTML table, a sheet), as rows of cell text. */
export interface DocumentTable {
  unit: number;
  caption?: string;
  rows: string[][];
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
