import type { artifactV1 } from '@quarry/contracts';
import { artifactErrors } from '../errors.js';
import type { FigureInfo } from '../store/document-figures.js';
import type { FigureRow } from './document-parts.js';
import type { StoredTable } from '../store/schema.js';
import { tableMarkdown } from './table-markdown.js';

/**
 * What get_artifact answers of a document's figures and tables: those on the pages read (with
 * each table's markdown), or without pages the first few of the document (without markdown: a
 * table's page gives it); and one figure's image. Pure.
 */

/** Without pages, this many figures and tables are listed (a long report can hold hundreds). */
const LISTED_WITHOUT_PAGES = 50;
/**
 * The largest image returned as image content. Figures of PDFs are scaled to at most 2,048 px a
 * side when stored; an Office picture is kept as its own bytes and can be larger. 5 MiB is the
 * largest image the common model APIs accept.
 */
const FIGURE_IMAGE_MAX_BYTES = 5 * 1024 * 1024;

type Range = { from: number; to: number } | undefined;
const within = (range: Range, unit: number) => !range || (unit >= range.from && unit <= range.to);

function figureOf(f: FigureInfo): artifactV1.DocumentFigure {
  return {
    number: f.number,
    page: f.unit,
    index: f.index_in_unit,
    caption: f.caption ?? undefined,
    mimeType: f.media_type,
    width: f.width,
    height: f.height,
    sizeBytes: f.size_bytes,
    sha256: f.sha256,
    box: f.box ?? [],
  };
}

export function figuresOn(figures: readonly FigureInfo[], range: Range): artifactV1.DocumentFigure[] {
  const on = figures.filter((f) => within(range, f.unit));
  return (range ? on : on.slice(0, LISTED_WITHOUT_PAGES)).map(figureOf);
}

export function tablesOn(tables: readonly StoredTable[], range: Range): artifactV1.DocumentTable[] {
  const numbered = tables.map((t, i) => ({ t, number: i + 1 })).filter(({ t }) => within(range, t.unit));
  return (range ? numbered : numbered.slice(0, LISTED_WITHOUT_PAGES)).map(({ t, number }) => ({
    number,
    page: t.unit,
    index: t.index,
    caption: t.caption,
    rows: t.rows.length,
    columns: Math.max(0, ...t.rows.map((r) => r.length)),
    markdown: range ? tableMarkdown(t.rows) : undefined,
  }));
}

/** The figure asked for, checked: there, and small enough to send as an image. */
export function figureImage(
  artifactId: string,
  asked: number,
  figure: FigureRow | undefined,
  count: number,
): FigureRow & { bytes: Buffer } {
  if (!figure) throw artifactErrors.FIGURE_NOT_FOUND({ artifactId, figure: asked, count });
  if (figure.size_bytes > FIGURE_IMAGE_MAX_BYTES)
    throw artifactErrors.FIGURE_TOO_LARGE({
      figure: asked,
      sizeBytes: figure.size_bytes,
      limit: FIGURE_IMAGE_MAX_BYTES,
    });
  return figure as FigureRow & { bytes: Buffer };
}
