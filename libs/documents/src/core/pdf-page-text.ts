import { isCaption } from './caption.js';

/** One run of text on a PDF page as the text layer gives it (PDF user space: y grows upwards). */
export interface TextRun {
  text: string;
  x: number;
  y: number;
  width: number;
  /** The font size in user space. */
  height: number;
  /** The run ends a line in the source. */
  endsLine: boolean;
}

/** A paragraph of a page: its text and where it lies vertically (top > bottom). */
export interface PageParagraph {
  text: string;
  top: number;
  bottom: number;
}

interface Line {
  text: string;
  y: number;
  height: number;
  end: number;
}

// A run belongs to the current line while its baseline is within half a font size of the line's;
// a horizontal gap wider than a fifth of the font size is a word break the text did not spell.
const SAME_LINE = 0.5;
const WORD_GAP = 0.2;
// A vertical step of more than 1.5 line heights, or any step upwards (a new column, a sidebar),
// starts a new paragraph.
const PARAGRAPH_GAP = 1.5;

function toLines(runs: readonly TextRun[]): Line[] {
  const lines: Line[] = [];
  let line: Line | undefined;
  for (const run of runs) {
    const size = Math.max(run.height, line?.height ?? 0, 1);
    if (line && Math.abs(run.y - line.y) > size * SAME_LINE) line = undefined;
    if (run.text !== '') {
      if (!line) {
        line = { text: '', y: run.y, height: run.height, end: run.x };
        lines.push(line);
      } else if (run.x - line.end > size * WORD_GAP && !/\s$/.test(line.text) && !/^\s/.test(run.text)) {
        line.text += ' ';
      }
      line.text += run.text;
      line.end = run.x + run.width;
      line.height = Math.max(line.height, run.height);
    }
    if (run.endsLine) line = undefined;
  }
  return lines.filter((l) => l.text.trim() !== '');
}

/**
 * The text layer of one page, in the order the content stream draws it (the order authoring
 * tools write, which is the reading order of nearly every generated PDF), as lines and
 * paragraphs: runs on one baseline join into a line, a wide vertical gap starts a paragraph.
 */
export function pageParagraphs(runs: readonly TextRun[]): PageParagraph[] {
  const paragraphs: PageParagraph[] = [];
  let current: { lines: string[]; top: number; bottom: number; height: number } | undefined;
  for (const line of toLines(runs)) {
    const step = current ? current.bottom - line.y : 0;
    if (current && (step < 0 || step > PARAGRAPH_GAP * Math.max(current.height, line.height))) {
      paragraphs.push({ text: current.lines.join('\n'), top: current.top, bottom: current.bottom });
      current = undefined;
    }
    if (!current) current = { lines: [], top: line.y + line.height, bottom: line.y, height: line.height };
    current.lines.push(line.text.trim());
    current.bottom = line.y;
    current.height = line.height;
  }
  if (current) paragraphs.push({ text: current.lines.join('\n'), top: current.top, bottom: current.bottom });
  return paragraphs;
}

/** The paragraphs that are figure captions. */
export function captions(paragraphs: readonly PageParagraph[]): PageParagraph[] {
  return paragraphs.filter((p) => isCaption(p.text));
}

/** An image's box on the page in user space. */
export interface ImageBox {
  top: number;
  bottom: number;
}

/**
 * The caption nearest each image (above or below it, within `reach` user-space units), each
 * caption given to one image at most. Returns, per image, the caption's text or undefined.
 */
export function captionFor(
  images: readonly ImageBox[],
  candidates: readonly PageParagraph[],
  reach: number,
): (string | undefined)[] {
  const distance = (image: ImageBox, caption: PageParagraph) =>
    caption.top <= image.bottom + 1
      ? image.bottom - caption.top
      : caption.bottom >= image.top - 1
        ? caption.bottom - image.top
        : 0;
  const pairs = images
    .flatMap((image, i) => candidates.map((caption, c) => ({ i, c, d: Math.max(0, distance(image, caption)) })))
    .filter((pair) => pair.d <= reach)
    .sort((a, b) => a.d - b.d);
  const result: (string | undefined)[] = images.map(() => undefined);
  const used = new Set<number>();
  for (const { i, c } of pairs) {
    if (result[i] !== undefined || used.has(c)) continue;
    result[i] = candidates[c]!.text.replace(/\s*\n\s*/g, ' ');
    used.add(c);
  }
  return result;
}
