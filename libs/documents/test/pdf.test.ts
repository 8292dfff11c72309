import { describe, expect, it } from '@jest/globals';
import { decode } from 'fast-png';
import { convertDocument, type ConvertedDocument } from '../src/index.js';
import { bookPdf, bookSentence, encryptedPdf, pdfBytes } from './fixtures/pdfs.js';

const unitText = (doc: ConvertedDocument, number: number) => {
  const unit = doc.units.find((u) => u.number === number)!;
  return doc.text.slice(unit.start, unit.end);
};

describe('PDF', () => {
  it('reads a 50-page PDF page by page: the sentence of page 37 is in page 37’s span, the figure on page 12 has its caption', async () => {
    const bytes = await bookPdf(50, 12);
    const doc = await convertDocument({ bytes, fileName: 'book.pdf' });
    expect(doc).toMatchObject({
      format: 'pdf',
      mediaType: 'application/pdf',
      title: 'A book of 50 pages',
      author: 'Quarry Tests',
      publishedAt: '2024-03-05T12:00:00.000Z',
      warnings: [],
    });
    expect(doc.metadata).toMatchObject({ pages: '50', pdfVersion: '1.7', title: 'A book of 50 pages' });
    expect(doc.units).toHaveLength(50);
    expect(doc.units.every((u, i) => u.kind === 'page' && u.number === i + 1)).toBe(true);
    expect(unitText(doc, 37)).toBe(`Chapter 37\n${bookSentence(37)}\nSome more text to fill the page.`);
    const at = doc.text.indexOf(bookSentence(37));
    const unit = doc.units.find((u) => u.start <= at && at < u.end);
    expect(unit?.number).toBe(37);
    expect(doc.figures).toHaveLength(1);
    const [figure] = doc.figures;
    expect(figure).toMatchObject({
      unit: 12,
      caption: 'Figure 1. The measurements of page 12.',
      mediaType: 'image/png',
      width: 120,
      height: 80,
    });
    const png = decode(figure!.bytes);
    expect([png.width, png.height]).toEqual([120, 80]);
  });

  it('is read as a PDF whatever it is called', async () => {
    const bytes = await pdfBytes({ pages: [{ lines: ['Hello from a PDF.'] }] });
    const doc = await convertDocument({ bytes, fileName: 'notes.docx', mediaType: 'text/plain' });
    expect(doc.format).toBe('pdf');
    expect(doc.text).toBe('Hello from a PDF.');
  });

  it('joins runs on one line, and separates paragraphs by the gaps between them', async () => {
    const { PDFDocument, StandardFonts } = await import('pdf-lib');
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const page = doc.addPage([595, 842]);
    page.drawText('Left part', { x: 50, y: 700, size: 12, font });
    page.drawText('right part.', { x: 110, y: 700, size: 12, font });
    page.drawText('Next line of the paragraph.', { x: 50, y: 686, size: 12, font });
    page.drawText('A new paragraph after a gap.', { x: 50, y: 640, size: 12, font });
    const converted = await convertDocument({ bytes: await doc.save() });
    expect(converted.text).toBe('Left part right part.\nNext line of the paragraph.\n\nA new paragraph after a gap.');
  });

  it('refuses a password-protected PDF with ENCRYPTED', async () => {
    await expect(convertDocument({ bytes: await encryptedPdf('secret') })).rejects.toMatchObject({
      code: 'ENCRYPTED',
      message: 'the PDF is password-protected; send it without the password',
    });
  });

  it('refuses a corrupt PDF with CORRUPT', async () => {
    const garbage = new TextEncoder().encode('%PDF-1.7\n' + 'this is not a PDF body '.repeat(50));
    await expect(convertDocument({ bytes: garbage, fileName: 'broken.pdf' })).rejects.toMatchObject({
      code: 'CORRUPT',
    });
  });

  it('refuses a PDF with no text layer (a scan) with NO_TEXT_LAYER, and names blank pages of one that has text', async () => {
    const scanned = await pdfBytes({ pages: [1, 2].map(() => ({ image: { width: 60, height: 80 } })) });
    await expect(convertDocument({ bytes: scanned })).rejects.toMatchObject({
      code: 'NO_TEXT_LAYER',
      message: 'the PDF has no text layer on any of its 2 pages (a scan?); it needs OCR, which is not configured',
    });
    const partly = await pdfBytes({
      pages: [1, 2, 3, 4, 5, 6].map((n) =>
        n >= 3 && n <= 5 ? { image: { width: 60, height: 80 } } : { lines: [`Text ${n}`] },
      ),
    });
    const doc = await convertDocument({ bytes: partly });
    expect(doc.warnings).toEqual(['no text layer on pages 3-5']);
    expect(doc.units.map((u) => u.end - u.start)).toEqual([6, 6, 0, 0, 0, 6]);
    expect(doc.figures.map((f) => f.unit)).toEqual([3, 4, 5]);
  });

  it('refuses more pages than the limit with TOO_MANY_UNITS', async () => {
    await expect(convertDocument({ bytes: await bookPdf(12) }, { limits: { maxUnits: 10 } })).rejects.toMatchObject({
      code: 'TOO_MANY_UNITS',
      message: 'the PDF has 12 pages; at most 10 are converted',
    });
  });

  it('skips an image over the pixel limit with a warning naming its page, without decoding it', async () => {
    const bytes = await pdfBytes({
      pages: [{ lines: ['One.'] }, { lines: ['Two.'], image: { width: 400, height: 300, caption: 'Figure 2. Big.' } }],
    });
    const doc = await convertDocument({ bytes }, { limits: { maxImagePixels: 100_000 } });
    expect(doc.figures).toEqual([]);
    expect(doc.warnings).toEqual(['images over 100000 pixels were skipped on page 2']);
    expect(doc.text).toContain('Figure 2. Big.');
  });
});
