import { type artifactV1, sourceUrl } from '@quarry/contracts';
import { cursorScope } from '@quarry/cursors';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { mimeTypeOf } from '../core/media-types.js';
import { type MediaType, mediaTypes } from '../enums.js';
import { listOutputsPage } from '../store/outputs.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';
import { keysetAfter, keysetLimit, keysetPage } from './keyset-pages.js';

/**
 * ListResearchOutputs: the org's deliverables without their content, most recent first, a page
 * at a time (keyset on created_at and id, like list_artifacts). A malformed or foreign plan id
 * lists nothing, as an unknown one does.
 */
export async function listResearchOutputs(
  deps: ArtifactServiceDeps,
  req: artifactV1.ListResearchOutputsRequest,
  ctx: CallContext,
): Promise<artifactV1.ListResearchOutputsResponse> {
  // A cursor belongs to one org and one plan filter.
  const scope = cursorScope('list_research_outputs', ctx.identity.orgId, req.planId);
  const after = keysetAfter(deps, scope, req.cursor);
  if (req.planId !== undefined && !isUuid(req.planId)) return { outputs: [] };
  const limit = keysetLimit(req.limit);
  // One row more than the page tells whether another page follows.
  const rows = await inTenant(deps.db, ctx, (trx) => listOutputsPage(trx, req.planId, after, limit + 1));
  const { page, nextCursor } = keysetPage(deps, scope, rows, limit);
  return {
    outputs: page.map((r) => ({
      outputId: r.id,
      planId: r.plan_id,
      mediaType: mediaTypes.valueOf(r.media_type as MediaType),
      mimeType: mimeTypeOf(r.media_type as MediaType),
      title: r.title,
      sizeBytes: r.content_size,
      createdAt: r.created_at,
      url: sourceUrl('research_output', r.id),
    })),
    nextCursor,
  };
}
