import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  getDocument,
  OPS,
  PDFDateString,
  VerbosityLevel,
  type PDFDocumentProxy,
  type PDFPageProxy,
} from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import type { ConversionLimits } from '../conversion-limits.js';
import { joinUnits, type UnitText } from '../core/document-text.js';
import { encodePng, type RawImage } from '../core/encode-figure.js';
import { placeImages, type PlacedImage } from '../core/image-placement.js';
import { pagesPhrase } from '../core/page-ranges.js';
import { captionFor, captions, pageParagraphs, type PageParagraph, type TextRun } from '../core/pdf-page-text.js';
import { pageTables } from '../core/pdf-tables.js';
import type { ConvertedDocument, DocumentFigure, DocumentTable } from '../document.js';
import { DocumentError } from '../document-error.js';

// pdfjs reads its standard-font metrics, CMaps (CJK text) and wasm decoders from files it ships.
const PDFJS_DIR = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const asset = (folder: string) => join(PDFJS_DIR, folder) + '/';

// Images smaller than this on both sides are rules, bullets and icons, not figures.
const MIN_FIGURE_SIDE = 16;
// pdfjs removes an image over `maxImageSize` pixels before decoding it and says so only as a
// warning on the console; in this worker thread the console is ours to read.
const IMAGE_REMOVED = 'Image exceeded maximum allowed size';

const PLACEMENT_OPS = {
  save: OPS.save,
  restore: OPS.restore,
  transform: OPS.transform,
  formBegin: OPS.paintFormXObjectBegin,
  formEnd: OPS.paintFormXObjectEnd,
  image: OPS.paintImageXObject,
};

async function open(bytes: Uint8Array, limits: Readonly<ConversionLimits>): Promise<PDFDocumentProxy> {
  try {
    return await getDocument({
      data: bytes,
      verbosity: VerbosityLevel.WARNINGS,
      maxImageSize: limits.maxImagePixels,
      isEvalSupported: false,
      isOffscreenCanvasSupported: false,
      isImageDecoderSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      standardFontDataUrl: asset('standard_fonts'),
      cMapUrl: asset('cmaps'),
      cMapPacked: true,
      wasmUrl: asset('wasm'),
      iccUrl: asset('iccs'),
    }).promise;
  } catch (error) {
    const { name, message } = error as Error;
    if (name === 'PasswordException') {
      throw new DocumentError('ENCRYPTED', 'the PDF is password-protected; send it without the password');
    }
    throw new DocumentError('CORRUPT', `the PDF could not be read: ${message}`);
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function isoDate(value: unknown): string | undefined {
  const date = typeof value === 'string' ? PDFDateString.toDateObject(value) : null;
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : undefined;
}

async function describe(pdf: PDFDocumentProxy) {
  const { info, metadata } = (await pdf.getMetadata()) as unknown as {
    info: Record<string, unknown>;
    metadata: { get(name: string): unknown } | null;
  };
  const fields = {
    pages: String(pdf.numPages),
    pdfVersion: text(info.PDFFormatVersion),
    title: text(info.Title) ?? text(metadata?.get('dc:title')),
    author: text(info.Author) ?? text(metadata?.get('dc:creator')),
    subject: text(info.Subject),
    keywords: text(info.Keywords),
    creator: text(info.Creator),
    producer: text(info.Producer),
    created: isoDate(info.CreationDate),
    modified: isoDate(info.ModDate),
    language: text(info.Language),
  };
  const record: Record<string, string> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) record[key] = value;
  return record;
}

function textRuns(items: readonly unknown[]): TextRun[] {
  return (items as TextItem[])
    .filter((item) => typeof item.str === 'string')
    .map((item) => ({
      text: item.str,
      x: item.transform[4] as number,
      y: item.transform[5] as number,
      width: item.width,
      height: item.height || Math.hypot(item.transform[2] as number, item.transform[3] as number),
      endsLine: item.hasEOL,
    }));
}

function imageData(page: PDFPageProxy, id: string): Promise<RawImage | undefined> {
  const store = id.startsWith('g_') ? page.commonObjs : page.objs;
  return new Promise((resolve) => store.get(id, (data: unknown) => resolve((data as RawImage | null) ?? undefined)));
}

interface FigureState {
  figures: DocumentFigure[];
  seen: Set<string>;
  skipped: { tooLarge: number[]; overCount: number };
}

async function pageFigures(
  page: PDFPageProxy,
  number: number,
  paragraphs: readonly PageParagraph[],
  limits: Readonly<ConversionLimits>,
  state: FigureState,
): Promise<void> {
  const operators = await page.getOperatorList();
  const placed = placeImages(operators.fnArray, operators.argsArray, PLACEMENT_OPS).filter((image) => {
    // An image drawn again (a logo on every page) is one figure, the first time it appears.
    if (state.seen.has(image.id)) return false;
    state.seen.add(image.id);
    return true;
  });
  const kept: { image: PlacedImage; raw: RawImage }[] = [];
  for (const image of placed) {
    const raw = await imageData(page, image.id);
    if (!raw || (raw.width < MIN_FIGURE_SIDE && raw.height < MIN_FIGURE_SIDE)) continue;
    if (state.figures.length + kept.length >= limits.maxFigures) {
      state.skipped.overCount++;
      continue;
    }
    kept.push({ image, raw });
  }
  const texts = captionFor(
    kept.map(({ image }) => image),
    captions(paragraphs),
    captionReach(page),
  );
  kept.forEach(({ image, raw }, i) => {
    const png = encodePng(raw, limits.maxFigureSide);
    if (!png) return;
    const caption = texts[i];
    const { left, bottom, right, top } = image;
    state.figures.push({
      unit: number,
      ...(caption ? { caption } : {}),
      mediaType: 'image/png',
      bytes: png.bytes,
      width: png.width,
      height: png.height,
      box: { left, bottom, right, top },
    });
  });
}

/** How far from a figure or table its caption may be: a fifth of the page's height. */
function captionReach(page: PDFPageProxy): number {
  const [, , , pageHeight] = page.view;
  return (pageHeight ?? 792) * 0.2;
}

/** Catch pdfjs's console warnings while `run` reads one page. */
async function watchingWarnings<T>(run: () => Promise<T>): Promise<{ result: T; warnings: string[] }> {
  const warnings: string[] = [];
  const original = console.warn;
  console.warn = (...args: unknown[]) => void warnings.push(args.map(String).join(' '));
  try {
    return { result: await run(), warnings };
  } finally {
    console.warn = original;
  }
}

/**
 * A PDF's text layer per page (in the content stream's order), its info dictionary, its embedded
 * images as PNG figures with the page they are on and the "Figure N" caption nearest them, and the
 * tables its text layout shows (with their "Table N" captions).
 */
export async function convertPdf(bytes: Uint8Array, limits: Readonly<ConversionLimits>): Promise<ConvertedDocument> {
  const pdf = await open(bytes, limits);
  try {
    if (pdf.numPages > limits.maxUnits) {
      throw new DocumentError(
        'TOO_MANY_UNITS',
        `the PDF has ${pdf.numPages} pages; at most ${limits.maxUnits} are converted`,
      );
    }
    const metadata = await describe(pdf);
    const pages: UnitText[] = [];
    const blank: number[] = [];
    const tables: DocumentTable[] = [];
    const state: FigureState = { figures: [], seen: new Set(), skipped: { tooLarge: [], overCount: 0 } };
    for (let number = 1; number <= pdf.numPages; number++) {
      const { warnings } = await watchingWarnings(async () => {
        let page: PDFPageProxy;
        try {
          page = await pdf.getPage(number);
        } catch (error) {
          throw new DocumentError(
            'CORRUPT',
            `page ${number} of the PDF could not be read: ${(error as Error).message}`,
          );
        }
        const runs = textRuns((await page.getTextContent()).items);
        const paragraphs = pageParagraphs(runs);
        if (paragraphs.length === 0) blank.push(number);
        pages.push({ kind: 'page', number, text: paragraphs.map((p) => p.text).join('\n\n') });
        await pageFigures(page, number, paragraphs, limits, state);
        for (const { rows, caption, left, bottom, right, top } of pageTables(runs, captionReach(page))) {
          tables.push({ unit: number, ...(caption ? { caption } : {}), rows, box: { left, bottom, right, top } });
        }
        page.cleanup();
      });
      if (warnings.some((warning) => warning.includes(IMAGE_REMOVED))) state.skipped.tooLarge.push(number);
    }
    if (blank.length === pdf.numPages) {
      throw new DocumentError(
        'NO_TEXT_LAYER',
        `the PDF has no text layer on any of its ${pdf.numPages} pages (a scan?); it needs OCR, which is not configured`,
      );
    }
    const warnings: string[] = [];
    if (blank.length > 0) warnings.push(`no text layer on ${pagesPhrase(blank)}`);
    if (state.skipped.tooLarge.length > 0) {
      warnings.push(
        `images over ${limits.maxImagePixels} pixels were skipped on ${pagesPhrase(state.skipped.tooLarge)}`,
      );
    }
    if (state.skipped.overCount > 0) {
      warnings.push(`${state.skipped.overCount} images past the first ${limits.maxFigures} were skipped`);
    }
    const { text: joined, units } = joinUnits(pages);
    return {
      format: 'pdf',
      mediaType: 'application/pdf',
      ...(metadata.title ? { title: metadata.title } : {}),
      ...(metadata.author ? { author: metadata.author } : {}),
      ...(metadata.created ? { publishedAt: metadata.created } : {}),
      ...(metadata.language ? { language: metadata.language } : {}),
      metadata,
      text: joined,
      units,
      figures: state.figures,
      tables,
      warnings,
    };
  } finally {
    await pdf.destroy();
  }
}
