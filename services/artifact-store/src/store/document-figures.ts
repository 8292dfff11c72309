import type { FigureRow } from '../core/document-parts.js';
import type { StoredTable } from './schema.js';
import type { Trx } from './tenant.js';

// A source document's figures (rows with their image bytes) and tables (JSON on the document
// row), always inside the caller's tenant transaction: another org's are not there.

/** What describes a figure (everything but its bytes). */
const FIGURE_INFO = [
  'number',
  'unit',
  'index_in_unit',
  'caption',
  'media_type',
  'width',
  'height',
  'box',
  'sha256',
  'size_bytes',
] as const;

export type FigureInfo = Omit<FigureRow, 'bytes'>;

// Figures are written a few at a time: one statement stays far below PostgreSQL's parameter
// limit and does not hold many images' bytes twice.
const INSERT_BATCH = 16;

export async function insertFigures(
  trx: Trx,
  artifactId: string,
  orgId: string,
  figures: readonly FigureRow[],
): Promise<void> {
  for (let at = 0; at < figures.length; at += INSERT_BATCH) {
    const batch = figures.slice(at, at + INSERT_BATCH).map((f) => ({ ...f, artifact_id: artifactId, org_id: orgId }));
    await trx.insertInto('artifact.document_figures').values(batch).execute();
  }
}

/** A document's figures in order, without their bytes. */
export async function listFigures(trx: Trx, artifactId: string): Promise<FigureInfo[]> {
  return trx
    .selectFrom('artifact.document_figures')
    .select(FIGURE_INFO)
    .where('artifact_id', '=', artifactId)
    .orderBy('number')
    .execute();
}

/** One figure with its bytes. */
export async function readFigure(trx: Trx, artifactId: string, number: number): Promise<FigureRow | undefined> {
  return trx
    .selectFrom('artifact.document_figures')
    .select([...FIGURE_INFO, 'bytes'])
    .where('artifact_id', '=', artifactId)
    .where('number', '=', number)
    .executeTakeFirst();
}

/** A document's tables in order. */
export async function readTables(trx: Trx, artifactId: string): Promise<StoredTable[]> {
  const row = await trx
    .selectFrom('artifact.documents')
    .select('tables')
    .where('artifact_id', '=', artifactId)
    .executeTakeFirst();
  return row?.tables ?? [];
}
