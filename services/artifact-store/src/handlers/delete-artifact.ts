import type { artifactV1 } from '@quarry/contracts';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { deletionEvents } from '../core/deletions.js';
import { artifactErrors } from '../errors.js';
import { deleteContentRows, deleteExtractionRows } from '../store/deletions.js';
import { appendDeletedEvents } from '../store/outbox.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';

/**
 * DeleteArtifact: the artifact and the extraction results made from it, purged in one
 * transaction with their content.deleted events. A missing, malformed, already deleted and
 * another org's id are ARTIFACT_NOT_FOUND alike, and nothing changes.
 */
export async function deleteArtifact(
  deps: ArtifactServiceDeps,
  req: artifactV1.DeleteArtifactRequest,
  ctx: CallContext,
): Promise<artifactV1.DeleteArtifactResponse> {
  const notFound = () => artifactErrors.ARTIFACT_NOT_FOUND({ artifactId: req.artifactId });
  if (!isUuid(req.artifactId)) throw notFound();
  return inTenant(deps.db, ctx, async (trx) => {
    const artifacts = await deleteContentRows(trx, 'research_artifact', { id: req.artifactId });
    if (artifacts.length === 0) throw notFound();
    const extractions = await deleteExtractionRows(trx, { sourceArtifactIds: [req.artifactId] });
    await appendDeletedEvents(trx, ctx, deletionEvents(ctx.identity.orgId, [...artifacts, ...extractions]));
    return { artifactId: req.artifactId, deleted: true, extractionResultsDeleted: extractions.length };
  });
}
