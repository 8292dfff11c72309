import type { artifactV1 } from '@quarry/contracts';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { deletionEvents } from '../core/deletions.js';
import { artifactErrors } from '../errors.js';
import { deleteContentRows } from '../store/deletions.js';
import { appendDeletedEvents } from '../store/outbox.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';

/**
 * DeleteResearchOutput: the output (its text or document bytes) purged in one transaction with
 * its content.deleted event. A missing, malformed, already deleted and another org's id are
 * OUTPUT_NOT_FOUND alike, and nothing changes.
 */
export async function deleteResearchOutput(
  deps: ArtifactServiceDeps,
  req: artifactV1.DeleteResearchOutputRequest,
  ctx: CallContext,
): Promise<artifactV1.DeleteResearchOutputResponse> {
  const notFound = () => artifactErrors.OUTPUT_NOT_FOUND({ outputId: req.outputId });
  if (!isUuid(req.outputId)) throw notFound();
  return inTenant(deps.db, ctx, async (trx) => {
    const outputs = await deleteContentRows(trx, 'research_output', { id: req.outputId });
    if (outputs.length === 0) throw notFound();
    await appendDeletedEvents(trx, ctx, deletionEvents(ctx.identity.orgId, outputs));
    return { outputId: req.outputId, deleted: true };
  });
}
