import { isTableCaption } from './caption.js';
import type { TextRun } from './pdf-page-text.js';

/** A table found in a page's text layout: its rows of cell text, its box, its caption if any. */
export interface PageTable {
  rows: string[][];
  left: number;
  bottom: number;
  right: number;
  top: number;
  caption?: string;
}

interface Cell {
  text: string;
  left: number;
  right: number;
}

interface Row {
  y: number;
  size: number;
  cells: Cell[];
}

// Runs within half a font size of a row's baseline are on that row; a horizontal gap of more
// than one font size between two runs separates cells (word spaces are a fifth to a half of it).
const SAME_ROW = 0.5;
const CELL_GAP = 1;
const WORD_GAP = 0.2;
// Rows further apart than this many font sizes are not one table.
const ROW_STEP = 2.5;
// A table has at least this many rows and columns.
const MIN_ROWS = 3;
const MIN_COLUMNS = 2;
// Columns of running text (a two-column paper) align too; a block where most cells are longer
// than this is prose, not a table.
const PROSE_CELL = 40;

/** The page's runs as rows (top to bottom), each cut into cells at wide gaps. */
function rowsOf(runs: readonly TextRun[]): Row[] {
  const sorted = runs.filter((r) => r.text.trim() !== '').sort((a, b) => b.y - a.y || a.x - b.x);
  const rows: { y: number; size: number; runs: TextRun[] }[] = [];
  for (const run of sorted) {
    const size = Math.max(run.height, 1);
    const row = rows.at(-1);
    if (row && Math.abs(row.y - run.y) <= Math.max(row.size, size) * SAME_ROW) {
      row.runs.push(run);
      row.size = Math.max(row.size, size);
    } else rows.push({ y: run.y, size, runs: [run] });
  }
  return rows.map(({ y, size, runs: rowRuns }) => {
    const cells: Cell[] = [];
    for (const run of [...rowRuns].sort((a, b) => a.x - b.x)) {
      const cell = cells.at(-1);
      const gap = cell ? run.x - cell.right : Infinity;
      if (cell && gap <= size * CELL_GAP) {
        cell.text += gap > size * WORD_GAP && !/\s$/.test(cell.text) ? ` ${run.text}` : run.text;
        cell.right = Math.max(cell.right, run.x + run.width);
      } else cells.push({ text: run.text, left: run.x, right: run.x + run.width });
    }
    return { y, size, cells: cells.map((c) => ({ ...c, text: c.text.trim() })) };
  });
}

/** The columns' spans widened by `row`, or undefined when the row does not fit them one to one. */
function fitColumns(columns: readonly Cell[], row: Row): Cell[] | undefined {
  if (row.cells.length !== columns.length) return undefined;
  const widened = columns.map((column, i) => {
    const cell = row.cells[i]!;
    const overlaps = cell.left <= column.right && cell.right >= column.left;
    return overlaps
      ? { text: '', left: Math.min(column.left, cell.left), right: Math.max(column.right, cell.right) }
      : undefined;
  });
  if (widened.some((c) => !c)) return undefined;
  const spans = widened as Cell[];
  return spans.every((c, i) => i === 0 || spans[i - 1]!.right < c.left) ? spans : undefined;
}

function isProse(rows: readonly Row[]): boolean {
  const cells = rows.flatMap((r) => r.cells);
  return cells.filter((c) => c.text.length > PROSE_CELL).length * 2 > cells.length;
}

/** A "Table N" line near the block: above it first (where captions of tables usually are), else below. */
function captionOf(rows: readonly Row[], block: { first: number; last: number }, reach: number): string | undefined {
  const top = rows[block.first]!;
  const bottom = rows[block.last]!;
  const text = (row: Row) => row.cells.map((c) => c.text).join(' ');
  for (let i = block.first - 1; i >= 0 && rows[i]!.y - top.y <= reach; i--) {
    if (isTableCaption(text(rows[i]!))) return text(rows[i]!);
  }
  for (let i = block.last + 1; i < rows.length && bottom.y - rows[i]!.y <= reach; i++) {
    if (isTableCaption(text(rows[i]!))) return text(rows[i]!);
  }
  return undefined;
}

/**
 * Tables in a page's text layout: at least three consecutive rows of at least two cells whose
 * cells line up in the same columns (each cell overlapping its column's span, columns apart),
 * rows no further apart than a few font sizes, cells mostly short (columns of prose are not a
 * table). A caption is the nearest line opening "Table N" within `reach` points above or below.
 * What this does not see: tables drawn without text alignment, cells left empty or merged across
 * columns (the row no longer fits and ends the table), tables split across pages.
 */
export function pageTables(runs: readonly TextRun[], reach: number): PageTable[] {
  const rows = rowsOf(runs);
  const tables: PageTable[] = [];
  const close = (first: number, last: number) => {
    const block = rows.slice(first, last + 1);
    if (block.length < MIN_ROWS || isProse(block)) return;
    const cells = block.flatMap((r) => r.cells);
    const caption = captionOf(rows, { first, last }, reach);
    tables.push({
      rows: block.map((r) => r.cells.map((c) => c.text)),
      left: Math.min(...cells.map((c) => c.left)),
      right: Math.max(...cells.map((c) => c.right)),
      top: block[0]!.y + block[0]!.size,
      bottom: block.at(-1)!.y,
      ...(caption ? { caption } : {}),
    });
  };
  let first = -1;
  let columns: Cell[] = [];
  rows.forEach((row, i) => {
    const previous = rows[i - 1];
    const near = previous !== undefined && previous.y - row.y <= ROW_STEP * Math.max(previous.size, row.size);
    const fitted = first >= 0 && near ? fitColumns(columns, row) : undefined;
    if (fitted) {
      columns = fitted;
      return;
    }
    if (first >= 0) close(first, i - 1);
    first = row.cells.length >= MIN_COLUMNS ? i : -1;
    columns = first >= 0 ? row.cells.map((c) => ({ ...c })) : [];
  });
  if (first >= 0) close(first, rows.length - 1);
  return tables;
}
