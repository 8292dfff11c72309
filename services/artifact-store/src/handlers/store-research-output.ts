import type { artifactV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { answerOf } from '../core/idempotency.js';
import { researchOutput } from '../core/writes.js';
import { appendEvent } from '../store/outbox.js';
import { insertRow } from '../store/insert-row.js';
import { inTenant } from '../store/tenant.js';
import { type ArtifactServiceDeps, storageQuotasOf } from './deps.js';

/**
 * StoreResearchOutput: a plan's deliverable (text, or a binary document sent as base64). A retry
 * with the first call's idempotency key gets the first output, and no second event.
 */
export async function storeResearchOutput(
  deps: ArtifactServiceDeps,
  req: artifactV1.StoreResearchOutputRequest,
  ctx: CallContext,
): Promise<artifactV1.StoreResearchOutputResponse> {
  const write = researchOutput(req);
  await deps.plans.resolve(ctx, req.planId);
  return inTenant(deps.db, ctx, async (trx) => {
    const written = await insertRow(
      trx,
      'artifact.research_outputs',
      ctx.identity.orgId,
      write.row,
      storageQuotasOf(deps),
    );
    const output = answerOf(written);
    if (written.kind === 'stored') await appendEvent(trx, ctx, output, write.event);
    return { outputId: output.id, mediaType: req.mediaType, title: req.title, stored: true };
  });
}
