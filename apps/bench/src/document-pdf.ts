import { encode } from 'fast-png';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { syntheticCorpus } from './corpus.js';

/** Lines per page and characters per line: about the text of a page of a report (≈ 500 words). */
const LINES_PER_PAGE = 46;
const LINE_CHARS = 95;
/** A figure (a 320 × 200 PNG) on every FIGURE_EVERY-th page. */
export const FIGURE_EVERY = 25;

function* lines(): Generator<string> {
  const docs = syntheticCorpus().docs;
  for (let i = 0; ; i++) {
    let line = '';
    for (const word of docs[i % docs.length]!.text.split(/\s+/)) {
      if (line.length + word.length + 1 > LINE_CHARS) {
        yield line;
        line = '';
      }
      line = line ? `${line} ${word}` : word;
    }
    if (line) yield line;
  }
}

function picture(n: number): Uint8Array {
  const width = 320;
  const height = 200;
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < width * height; i++) data.fill((i * 7 + n * 31) % 256, i * 3, i * 3 + 3);
  return encode({ width, height, data, channels: 3 });
}

/**
 * A generated PDF of `pages` A4 pages of running text in Helvetica (the synthetic corpus, seeded:
 * the same bytes every run), with a captioned figure on every 25th page.
 */
export async function benchPdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(`A ${pages}-page benchmark document`);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const text = lines();
  for (let n = 1; n <= pages; n++) {
    const page = doc.addPage([595, 842]);
    let y = 800;
    const figure = n % FIGURE_EVERY === 0;
    const count = figure ? LINES_PER_PAGE - 16 : LINES_PER_PAGE;
    for (let i = 0; i < count; i++, y -= 16) page.drawText(text.next().value!, { x: 50, y, size: 9.5, font });
    if (figure) {
      const image = await doc.embedPng(picture(n));
      page.drawImage(image, { x: 140, y: y - 200, width: 320, height: 200 });
      page.drawText(`Figure ${n / FIGURE_EVERY}. Generated chart on page ${n}.`, { x: 140, y: y - 216, size: 9, font });
    }
  }
  return doc.save();
}
