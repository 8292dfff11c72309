import { PDFDocument, PDFHexString, StandardFonts } from 'pdf-lib';

// Generated PDFs with known text per page, for tests that send documents through Quarry.

/** The sentence on page `n` of `pagedPdf`: unique to that page (its number is spelled out twice). */
export const pageSentence = (n: number) => `Page ${n} records that harbour ${n} shipped ${n * 11} crates of tin.`;

/** An A4 PDF of `pages` pages (Helvetica): a heading and `pageSentence(n)` on each page n. */
export async function pagedPdf(pages: number, title = `A report of ${pages} pages`): Promise<Buffer> {
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
  }
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

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
