import { type artifactV1, sourceUrl } from '@quarry/contracts';
import { cursorScope } from '@quarry/cursors';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { documentInfoOf } from '../core/document-info.js';
import { pagesOf, parsePages, unitsOf } from '../core/document-pages.js';
import { figureImage, figuresOn, tablesOn } from '../core/document-parts-read.js';
import { instructionFlagsOf } from '../core/instruction-flags.js';
import { artifactSources, artifactTypes } from '../enums.js';
import { artifactErrors } from '../errors.js';
import { readArtifact } from '../store/artifacts.js';
import { listFigures, readFigure, readTables } from '../store/document-figures.js';
import { readDocumentInfo, readOriginal } from '../store/documents.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';
import { budgetOf, readOffset, textPage } from './text-pages.js';

/**
 * GetArtifact: an artifact read back whole, its contentText in pages within the byte budget. The
 * content object comes with the first page when it fits the budget (its size counts against
 * it), else it is left out and said so. A missing, malformed and another org's id are refused alike.
 * A source document also gives its description and, asked for, its original file; `pages` reads
 * only those pages (slides, sheets) of its text, with their spans in what is returned, and the
 * figures and tables on them; `figure` returns one figure's image, and its page's text unless
 * `pages` says otherwise.
 */
export async function getArtifact(
  deps: ArtifactServiceDeps,
  req: artifactV1.GetArtifactRequest,
  ctx: CallContext,
): Promise<artifactV1.GetArtifactResponse> {
  const asked = req.pages === undefined ? undefined : parsePages(req.pages);
  const found = isUuid(req.id)
    ? await inTenant(deps.db, ctx, async (trx) => {
        const row = await readArtifact(trx, req.id);
        if (row?.source !== 'document') return row && { row };
        const document = await readDocumentInfo(trx, row.id);
        const original = req.original ? await readOriginal(trx, row.id) : undefined;
        const figures = await listFigures(trx, row.id);
        const tables = await readTables(trx, row.id);
        const figure = req.figure === undefined ? undefined : await readFigure(trx, row.id, req.figure);
        return { row, document, original, figures, tables, figure };
      })
    : undefined;
  if (!found) throw artifactErrors.ARTIFACT_NOT_FOUND({ artifactId: req.id });
  const { row, document, original, figures = [], tables = [] } = found;
  if ((asked || req.figure !== undefined) && !document) throw artifactErrors.DOCUMENT_NOT_FOUND({ artifactId: row.id });
  const image = req.figure === undefined ? undefined : figureImage(row.id, req.figure, found.figure, figures.length);
  // A figure is read with the text of its page, unless other pages are asked for.
  const pages = req.pages ?? (image ? String(image.unit) : undefined);
  const range = asked ?? (image ? { from: image.unit, to: image.unit } : undefined);

  let fullText = row.content_text;
  let units: artifactV1.DocumentUnit[] = [];
  if (document && range && fullText !== null) {
    const picked = pagesOf(fullText, unitsOf(document.unit_kind, document.units), range, pages!);
    fullText = picked.text;
    units = picked.units.map(({ number, start, end }) => ({ number, start, end }));
  }
  // A cursor is bound to the pages asked for: it continues the same slice of the text.
  const scope = cursorScope('get_artifact', row.id, ...(pages === undefined ? [] : [pages]));
  const offset = readOffset(deps, scope, req.cursor);
  const budget = budgetOf(deps, req.maxBytes);
  const contentJson = JSON.stringify(row.content);
  const contentBytes = Buffer.byteLength(contentJson, 'utf8');
  const firstPage = req.cursor === undefined;
  const withContent = firstPage && contentBytes <= budget;
  const text =
    fullText === null
      ? undefined
      : textPage(deps, scope, fullText, offset, withContent ? budget - contentBytes : budget);
  const url = sourceUrl('research_artifact', row.id, range && units.length ? units[0]!.number : undefined);
  return {
    id: row.id,
    artifactType: artifactTypes.valueOf(row.artifact_type as 'analysis'),
    title: row.title,
    content: withContent ? (row.content as Record<string, unknown>) : undefined,
    contentOmitted: firstPage && !withContent,
    contentBytes,
    contentText: text?.text,
    page: text?.page,
    tags: row.tags,
    confidence: row.confidence ?? undefined,
    planId: row.plan_id ?? undefined,
    stepId: row.step_id ?? undefined,
    source: artifactSources.valueOf(row.source),
    createdAt: row.created_at,
    url,
    document: document && documentInfoOf(document),
    units,
    original:
      document && original
        ? { uri: `quarry://artifacts/${row.id}/original`, mimeType: document.media_type, blob: original }
        : undefined,
    figures: image ? figuresOn([image], undefined) : figuresOn(figures, range),
    tables: tablesOn(tables, range),
    image: image && { mimeType: image.media_type, data: image.bytes },
    instructionFlags: instructionFlagsOf(row.instruction_flags),
  };
}
