import type { artifactV1 } from '@quarry/contracts';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { deletionEvents } from '../core/deletions.js';
import { deleteContentRows, deleteExtractionRows } from '../store/deletions.js';
import { deletePlanGraph } from '../store/entities.js';
import { appendDeletedEvents } from '../store/outbox.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';

/**
 * PurgePlanContent (internal, the plan engine's delete_plan): everything stored for the plan —
 * artifacts, outputs, extraction results of the plan or made from its artifacts, the plan's
 * entity graph — deleted in one transaction with one content.deleted event per source. Idempotent: called again (a retry
 * after the plan engine failed in between) it finds nothing and answers zeros; an unknown or
 * another org's plan has nothing to delete either.
 */
export async function purgePlanContent(
  deps: ArtifactServiceDeps,
  req: artifactV1.PurgePlanContentRequest,
  ctx: CallContext,
): Promise<artifactV1.PurgePlanContentResponse> {
  if (!isUuid(req.planId)) return { artifactsDeleted: 0, outputsDeleted: 0, extractionResultsDeleted: 0 };
  const { planId } = req;
  return inTenant(deps.db, ctx, async (trx) => {
    const artifacts = await deleteContentRows(trx, 'research_artifact', { planId });
    const outputs = await deleteContentRows(trx, 'research_output', { planId });
    const extractions = await deleteExtractionRows(trx, {
      planId,
      sourceArtifactIds: artifacts.map((a) => a.sourceId),
    });
    await deletePlanGraph(trx, ctx.identity.orgId, planId);
    await appendDeletedEvents(trx, ctx, deletionEvents(ctx.identity.orgId, [...artifacts, ...outputs, ...extractions]));
    return {
      artifactsDeleted: artifacts.length,
      outputsDeleted: outputs.length,
      extractionResultsDeleted: extractions.length,
    };
  });
}
