import type { artifactV1 } from '@quarry/contracts';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { extractionEvent, extractionRow } from '../core/extraction-result.js';
import { artifactErrors } from '../errors.js';
import { artifactExists } from '../store/artifacts.js';
import { insertExtractionResult } from '../store/extraction-results.js';
import { appendEvent } from '../store/outbox.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';

/**
 * StoreExtractionResult: the extraction service's finished result. Its source artifact, when it
 * names one, must be the caller's (a missing, malformed or foreign id is ARTIFACT_NOT_FOUND).
 * With an idempotency key used before in the org, the first result is returned and nothing is
 * stored or emitted again.
 */
export async function storeExtractionResult(
  deps: ArtifactServiceDeps,
  req: artifactV1.StoreExtractionResultRequest,
  ctx: CallContext,
): Promise<artifactV1.StoreExtractionResultResponse> {
  const row = extractionRow(req);
  // Any given planId goes to the plan engine, so '' is PLAN_NOT_FOUND rather than a bad row.
  if (req.planId !== undefined) await deps.plans.resolve(ctx, req.planId, req.stepId);
  return inTenant(deps.db, ctx, async (trx) => {
    const sourceId = row.source_artifact_id;
    if (sourceId != null && !(isUuid(sourceId) && (await artifactExists(trx, sourceId))))
      throw artifactErrors.ARTIFACT_NOT_FOUND({ artifactId: sourceId });
    const stored = await insertExtractionResult(trx, ctx.identity.orgId, row);
    if (stored.replayed)
      return { extractionId: stored.id, replayed: true, storedData: stored.data as Record<string, unknown> };
    await appendEvent(trx, ctx, stored, extractionEvent(req));
    return { extractionId: stored.id, replayed: false };
  });
}
