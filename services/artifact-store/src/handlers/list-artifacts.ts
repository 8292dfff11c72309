import { type artifactV1, sourceUrl } from '@quarry/contracts';
import { cursorScope } from '@quarry/cursors';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { artifactSources, artifactTypes } from '../enums.js';
import { type ArtifactFilters, listArtifactsPage } from '../store/artifacts.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';
import { keysetAfter, keysetLimit, keysetPage } from './keyset-pages.js';

/**
 * ListArtifacts: the org's artifacts, most recent first, a page at a time (keyset pagination on
 * created_at and id, so pages neither skip nor repeat rows while others are stored). A
 * malformed or foreign plan id lists nothing, as an unknown one does.
 */
export async function listArtifacts(
  deps: ArtifactServiceDeps,
  req: artifactV1.ListArtifactsRequest,
  ctx: CallContext,
): Promise<artifactV1.ListArtifactsResponse> {
  const filters: ArtifactFilters = {
    planId: req.planId,
    artifactType: req.artifactType ? artifactTypes.required(req.artifactType, 'artifactType') : undefined,
    tags: req.tags,
    createdSince: req.createdSince,
  };
  // A cursor belongs to one org and one set of filters.
  const scope = cursorScope('list_artifacts', ctx.identity.orgId, [
    filters.planId,
    filters.artifactType,
    [...filters.tags].sort(),
    filters.createdSince,
  ]);
  const after = keysetAfter(deps, scope, req.cursor);
  if (filters.planId !== undefined && !isUuid(filters.planId)) return { artifacts: [] };
  const limit = keysetLimit(req.limit);
  // One row more than the page tells whether another page follows.
  const rows = await inTenant(deps.db, ctx, (trx) => listArtifactsPage(trx, filters, after, limit + 1));
  const { page, nextCursor } = keysetPage(deps, scope, rows, limit);
  return {
    artifacts: page.map((r) => ({
      id: r.id,
      artifactType: artifactTypes.valueOf(r.artifact_type as 'analysis'),
      title: r.title,
      tags: r.tags,
      confidence: r.confidence ?? undefined,
      planId: r.plan_id ?? undefined,
      stepId: r.step_id ?? undefined,
      source: artifactSources.valueOf(r.source),
      createdAt: r.created_at,
      url: sourceUrl('research_artifact', r.id),
    })),
    nextCursor,
  };
}
