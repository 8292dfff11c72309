import type { ConversionLimits } from '../conversion-limits.js';
import { isCaption } from '../core/caption.js';
import { joinUnits, type UnitText } from '../core/document-text.js';
import type { ConvertedDocument, DocumentTable } from '../document.js';
import { DocumentError } from '../document-error.js';
import { officeProperties } from './office-properties.js';
import { FigureCollector } from './office-figures.js';
import { relationshipId, children, elements, readXml, relationships, textOf, type Element } from './office-xml.js';
import type { Archive } from './zip-archive.js';

const TITLE_PLACEHOLDERS = new Set(['title', 'ctrTitle']);

/** A text body's paragraphs (a:p), each its runs' text with line breaks, empty ones dropped. */
function paragraphs(body: Element): string[] {
  return elements(body, 'p')
    .map((p) =>
      Array.from(p.childNodes)
        .map((node) => {
          const el = node as Element;
          if (el.localName === 'r' || el.localName === 'fld') return textOf(el);
          if (el.localName === 'br') return '\n';
          return '';
        })
        .join('')
        .trim(),
    )
    .filter((text) => text !== '');
}

function isTitle(shape: Element): boolean {
  const placeholder = elements(shape, 'ph')[0];
  return placeholder !== undefined && TITLE_PLACEHOLDERS.has(placeholder.getAttribute('type') ?? '');
}

function tableRows(table: Element): string[][] {
  return children(table, 'tr').map((row) => children(row, 'tc').map((cell) => paragraphs(cell).join(' ')));
}

interface Slide {
  text: string;
  tables: string[][][];
  pictures: string[];
  captions: string[];
}

/** One slide's title, text and tables in the order of its shape tree, and its pictures' relationship ids. */
function readSlide(archive: Archive, part: string): Slide {
  const xml = readXml(archive, part);
  const tree = elements(xml, 'spTree')[0];
  const blocks: string[] = [];
  const tables: string[][][] = [];
  let title: string | undefined;
  for (const node of tree ? elements(tree, '*') : []) {
    if (node.localName === 'sp') {
      const body = children(node, 'txBody')[0];
      const text = body ? paragraphs(body) : [];
      if (text.length === 0) continue;
      if (title === undefined && isTitle(node)) title = text.join(' ');
      else blocks.push(text.join('\n'));
    } else if (node.localName === 'tbl') {
      const rows = tableRows(node);
      tables.push(rows);
      blocks.push(rows.map((row) => row.join(' | ')).join('\n'));
    }
  }
  const pictures = elements(xml, 'blip')
    .map((blip) => relationshipId(blip, 'embed'))
    .filter((id): id is string => id !== undefined);
  const text = [title ? `## ${title}` : undefined, ...blocks].filter(Boolean).join('\n\n');
  return { text, tables, pictures, captions: blocks.filter(isCaption) };
}

/** The slide's speaker notes, if it has any (their text body, less the slide-image placeholder). */
function notesOf(archive: Archive, part: string): string | undefined {
  const notes = [...relationships(archive, part).values()].find((rel) => rel.type === 'notesSlide' && !rel.external);
  if (!notes || archive.text(notes.target) === undefined) return undefined;
  const text = elements(readXml(archive, notes.target), 'sp')
    .filter((shape) => elements(shape, 'ph')[0]?.getAttribute('type') === 'body')
    .flatMap((shape) => paragraphs(shape))
    .join('\n');
  return text || undefined;
}

/**
 * A PowerPoint deck slide by slide in presentation order (p:sldIdLst): each slide's title as a
 * heading, its text boxes and tables in shape-tree order, its speaker notes; its pictures as
 * figures of that slide.
 */
export function convertPptx(
  archive: Archive,
  limits: Readonly<ConversionLimits>,
  warnings: string[],
): ConvertedDocument {
  const presentation = readXml(archive, 'ppt/presentation.xml');
  const rels = relationships(archive, 'ppt/presentation.xml');
  const slideParts = elements(presentation, 'sldId')
    .map((slide) => rels.get(relationshipId(slide, 'id') ?? ''))
    .filter((rel) => rel !== undefined && !rel.external)
    .map((rel) => rel!.target);
  if (slideParts.length > limits.maxUnits) {
    throw new DocumentError(
      'TOO_MANY_UNITS',
      `the presentation has ${slideParts.length} slides; at most ${limits.maxUnits} are converted`,
    );
  }
  const units: UnitText[] = [];
  const tables: DocumentTable[] = [];
  const figures = new FigureCollector(limits, 'slide');
  slideParts.forEach((part, index) => {
    const number = index + 1;
    const slide = readSlide(archive, part);
    const notes = notesOf(archive, part);
    units.push({ kind: 'slide', number, text: notes ? `${slide.text}\n\nNotes: ${notes}` : slide.text });
    for (const rows of slide.tables) tables.push({ unit: number, rows });
    const slideRels = relationships(archive, part);
    const seen = new Set<string>();
    slide.pictures.forEach((id, i) => {
      const target = slideRels.get(id);
      if (!target || target.external || seen.has(target.target)) return;
      seen.add(target.target);
      const bytes = archive.bytes(target.target);
      if (bytes) figures.add(bytes, number, slide.captions[i]);
    });
  });
  const properties = officeProperties(archive);
  const { text, units: spans } = joinUnits(units);
  return {
    format: 'pptx',
    mediaType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    ...(properties.title ? { title: properties.title } : {}),
    ...(properties.author ? { author: properties.author } : {}),
    ...(properties.publishedAt ? { publishedAt: properties.publishedAt } : {}),
    ...(properties.language ? { language: properties.language } : {}),
    metadata: { ...properties.metadata, slides: String(slideParts.length) },
    text,
    units: spans,
    figures: figures.figures,
    tables,
    warnings: [...warnings, ...figures.warnings()],
  };
}
