import type { artifactV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import type { ArtifactServiceDeps } from './deps.js';

/** CheckExtractionTarget: exactly storeExtractionResult's check, so a target that passes here is one it accepts. */
export async function checkExtractionTarget(
  deps: ArtifactServiceDeps,
  req: artifactV1.CheckExtractionTargetRequest,
  ctx: CallContext,
): Promise<artifactV1.CheckExtractionTargetResponse> {
  await deps.plans.resolve(ctx, req.planId, req.stepId);
  return {};
}
