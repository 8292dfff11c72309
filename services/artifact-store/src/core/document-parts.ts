import { createHash } from 'node:crypto';
import type { DocumentBox, DocumentFigure, DocumentTable } from '@quarry/documents';
import type { NewRow, StoredTable } from '../store/schema.js';

/**
 * A converted document's figures and tables as stored: numbered from 1 in reading order across
 * the document, each with its order among those of its unit, figures with the SHA-256 of their
 * image. Pure.
 */

export type FigureRow = Omit<NewRow<'artifact.document_figures'>, 'artifact_id' | 'org_id'>;

const boxOf = (box: DocumentBox | undefined) => (box ? [box.left, box.bottom, box.right, box.top] : undefined);

/** 1, 2, … for each item's unit in turn: its order among the items of that unit. */
function indexesInUnit(items: readonly { unit: number }[]): number[] {
  const seen = new Map<number, number>();
  return items.map(({ unit }) => {
    const index = (seen.get(unit) ?? 0) + 1;
    seen.set(unit, index);
    return index;
  });
}

export function figureRows(figures: readonly DocumentFigure[]): FigureRow[] {
  const indexes = indexesInUnit(figures);
  return figures.map((f, i) => {
    const bytes = Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength);
    return {
      number: i + 1,
      unit: f.unit,
      index_in_unit: indexes[i]!,
      caption: f.caption ?? null,
      media_type: f.mediaType,
      width: f.width,
      height: f.height,
      box: boxOf(f.box) ?? null,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      size_bytes: bytes.length,
      bytes,
    };
  });
}

export function storedTables(tables: readonly DocumentTable[]): StoredTable[] {
  const indexes = indexesInUnit(tables);
  return tables.map((t, i) => {
    const box = boxOf(t.box);
    return {
      unit: t.unit,
      index: indexes[i]!,
      ...(t.caption ? { caption: t.caption } : {}),
      rows: t.rows,
      ...(box ? { box } : {}),
    };
  });
}
