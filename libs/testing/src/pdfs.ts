import { encode } from 'fast-png';
import { PDFDocument, PDFHexString, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';

// Generated PDFs with known text per page, for tests that send documents through Quarry.

/** The sentence on page `n` of `pagedPdf`: unique to that page (its number is spelled out twice). */
export const pageSentence = (n: number) => `Page ${n} records that harbour ${n} shipped ${n * 11} crates of tin.`;

/** The known image of `illustratedPdf`: 96 × 64 RGB, red growing to the right, green downwards. */
export const FIGURE_SIZE = { width: 96, height: 64 } as const;
const figurePixel = (x: number, y: number): [number, number, number] => [x * 2, y * 3, 128];

/** The caption under the figure of `illustratedPdf`. */
export const FIGURE_CAPTION = 'Figure 3: Tin shipped per harbour, 2020-2025.';

/** The table of `illustratedPdf` (header first), with its caption above it. */
export const TABLE_CAPTION = 'Table 2: Crates and tin by harbour';
const TABLE_ROWS = [
  ['Harbour', 'Crates', 'Tin (t)'],
  ['North', '120', '3.5'],
  ['South', '95', '2.25'],
  ['East', '40', '1.0'],
];

/** Where the extras of `pagedPdf` go: a figure (the known image and its caption), a table. */
export interface PagedPdfExtras {
  figurePage?: number;
  tablePage?: number;
}

/** The known image as PNG (as the converter gives a PDF's figure back: 8-bit RGB, fast-png). */
export function figurePng(): Uint8Array {
  const { width, height } = FIGURE_SIZE;
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(figurePixel(x, y), (y * width + x) * 3);
  return encode({ width, height, data, channels: 3 });
}

/** The table, each cell drawn on its own at its column's x, as a word processor lays one out. */
function drawTable(page: PDFPage, font: PDFFont) {
  page.drawText(TABLE_CAPTION, { x: 56, y: 700, size: 10, font });
  TABLE_ROWS.forEach((row, r) =>
    row.forEach((cell, c) => page.drawText(cell, { x: 56 + c * 110, y: 680 - r * 16, size: 10, font })),
  );
}

/**
 * An A4 PDF of `pages` pages (Helvetica): a heading and `pageSentence(n)` on each page n, and
 * where `extras` say, the known figure with `FIGURE_CAPTION` under it and a 4 × 3 table under `TABLE_CAPTION`.
 */
export async function pagedPdf(
  pages: number,
  title = `A report of ${pages} pages`,
  extras: PagedPdfExtras = {},
): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.setTitle(title);
  // Fixed dates: the same pages and title always make the same bytes (imports deduplicate by them).
  doc.setCreationDate(new Date('2026-01-01T00:00:00Z'));
  doc.setModificationDate(new Date('2026-01-01T00:00:00Z'));
  doc.setAuthor('Quarry Tests');
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++) {
    const page = doc.addPage([595, 842]);
    page.drawText(`Section ${n}`, { x: 56, y: 780, size: 14, font });
    page.drawText(pageSentence(n), { x: 56, y: 750, size: 11, font });
    if (n === extras.figurePage) {
      page.drawImage(await doc.embedPng(figurePng()), { x: 56, y: 520, width: 288, height: 192 });
      page.drawText(FIGURE_CAPTION, { x: 56, y: 500, size: 9, font });
    }
    if (n === extras.tablePage) drawTable(page, font);
  }
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** The 50-page report with the known figure on page 12 and the table on page 20. */
export const illustratedPdf = () =>
  pagedPdf(50, 'An illustrated report of 50 pages', { figurePage: 12, tablePage: 20 });

/**
 * A PDF that asks for a password: the standard security handler's /Encrypt dictionary with an
 * owner and user entry no empty password opens, so a reader refuses it before reading a page.
 */
export async function passwordProtectedPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([595, 842]).drawText('A secret.', { x: 56, y: 780, size: 11, font });
  const { context } = doc;
  const encrypt = context.obj({
    Filter: 'Standard',
    V: 1,
    R: 2,
    O: PDFHexString.of('11'.repeat(32)),
    U: PDFHexString.of('22'.repeat(32)),
    P: -44,
  });
  context.trailerInfo.Encrypt = context.register(encrypt);
  const id = PDFHexString.of('33'.repeat(16));
  context.trailerInfo.ID = context.obj([id, id]);
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** Bytes that start like a PDF and are none. */
export const corruptPdf = (): Buffer => Buffer.from(`%PDF-1.7\n${'not a PDF body at all '.repeat(40)}`, 'latin1');
