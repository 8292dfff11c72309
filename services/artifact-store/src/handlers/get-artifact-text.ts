import type { artifactV1 } from '@quarry/contracts';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { artifactText } from '../core/indexed-text.js';
import { readDocumentInfo } from '../store/documents.js';
import { artifactErrors } from '../errors.js';
import { findArtifact } from '../store/artifacts.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';

/**
 * GetArtifactText: the text of one of the caller's artifacts (for extraction), with the spans of
 * a source document's pages (slides, sheets), so a grounded value can name its page. A missing,
 * malformed and another org's artifact id are refused alike, so an id reveals nothing.
 */
export async function getArtifactText(
  deps: ArtifactServiceDeps,
  req: artifactV1.GetArtifactTextRequest,
  ctx: CallContext,
): Promise<artifactV1.GetArtifactTextResponse> {
  const found = isUuid(req.artifactId)
    ? await inTenant(deps.db, ctx, async (trx) => {
        const row = await findArtifact(trx, req.artifactId);
        const document = row ? await readDocumentInfo(trx, row.id) : undefined;
        return row && { row, document };
      })
    : undefined;
  if (!found) throw artifactErrors.ARTIFACT_NOT_FOUND({ artifactId: req.artifactId });
  const { row, document } = found;
  // A document's text is its content_text, so its units' spans hold in `text`; sections are not pages.
  const paged = document && document.unit_kind !== 'section' && row.content_text !== null;
  return {
    artifactId: row.id,
    title: row.title,
    text: artifactText(row.content_text, row.content),
    planId: row.plan_id ?? undefined,
    pages: paged ? { units: document.units.map(([number, start, end]) => ({ number, start, end })) } : undefined,
  };
}
