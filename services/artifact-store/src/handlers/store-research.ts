import type { artifactV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { answerOf } from '../core/idempotency.js';
import { researchArtifact } from '../core/writes.js';
import type { HandlerDeps } from './deps.js';

/**
 * StoreResearch: a client's artifact, attached to a plan (and step) only once the plan engine
 * resolves them; the row and its event are committed together with the org's concurrent
 * store_research calls (store/group-commit.ts). A retry with the first call's idempotency key
 * gets the first artifact (core/idempotency.ts).
 */
export async function storeResearch(
  deps: HandlerDeps,
  req: artifactV1.StoreResearchRequest,
  ctx: CallContext,
): Promise<artifactV1.StoreResearchResponse> {
  const write = researchArtifact(req);
  if (req.planId) await deps.plans.resolve(ctx, req.planId, req.stepId);
  const { id } = answerOf(await deps.artifactWrites.write(ctx, write.row, write.event));
  return { id, artifactType: req.artifactType, title: req.title, stored: true };
}
