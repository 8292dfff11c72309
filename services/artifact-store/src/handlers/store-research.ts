import type { artifactV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { researchArtifact } from '../core/writes.js';
import { insertArtifact } from '../store/artifacts.js';
import { appendEvent } from '../store/outbox.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';

/** StoreResearch: a client's artifact, attached to a plan (and step) only once the plan engine resolves them. */
export async function storeResearch(
  deps: ArtifactServiceDeps,
  req: artifactV1.StoreResearchRequest,
  ctx: CallContext,
): Promise<artifactV1.StoreResearchResponse> {
  const write = researchArtifact(req);
  if (req.planId) await deps.plans.resolve(ctx, req.planId, req.stepId);
  return inTenant(deps.db, ctx, async (trx) => {
    const inserted = await insertArtifact(trx, ctx.identity.orgId, write.row);
    await appendEvent(trx, ctx, inserted, write.event);
    return { id: inserted.id, artifactType: req.artifactType, title: req.title, stored: true };
  });
}
