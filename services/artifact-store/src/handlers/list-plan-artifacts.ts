import type { artifactV1 } from '@quarry/contracts';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { artifactTypes } from '../enums.js';
import { planArtifacts } from '../store/artifacts.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';

const LIST_LIMIT = 500;

/** ListPlanArtifacts: a plan's artifacts, oldest first; a malformed or foreign plan id lists none. */
export async function listPlanArtifacts(
  deps: ArtifactServiceDeps,
  req: artifactV1.ListPlanArtifactsRequest,
  ctx: CallContext,
): Promise<artifactV1.ListPlanArtifactsResponse> {
  if (!isUuid(req.planId)) return { artifacts: [] };
  const rows = await inTenant(deps.db, ctx, (trx) => planArtifacts(trx, req.planId, LIST_LIMIT));
  return {
    artifacts: rows.map((r) => ({
      id: r.id,
      artifactType: artifactTypes.valueOf(r.artifact_type as 'analysis'),
      title: r.title,
      confidence: r.confidence ?? undefined,
      stepId: r.step_id ?? undefined,
      createdAt: r.created_at,
    })),
  };
}
