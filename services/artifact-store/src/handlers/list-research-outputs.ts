import { createHash } from 'node:crypto';
import { type artifactV1, sourceUrl } from '@quarry/contracts';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { mimeTypeOf } from '../core/media-types.js';
import { type MediaType, mediaTypes } from '../enums.js';
import { artifactErrors } from '../errors.js';
import { listOutputsPage } from '../store/outputs.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/** A cursor belongs to one plan filter: the same page position means nothing under another. */
function scopeOf(planId: string | undefined): string {
  const key = JSON.stringify([planId ?? null]);
  return `list_research_outputs:${createHash('sha256').update(key).digest('base64url').slice(0, 22)}`;
}

function afterOf(deps: ArtifactServiceDeps, scope: string, cursor: string | undefined) {
  if (cursor === undefined) return undefined;
  const position = deps.reads.cursors.open(cursor, scope);
  const parsed = typeof position === 'string' ? (JSON.parse(position) as unknown) : undefined;
  if (!Array.isArray(parsed) || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string')
    throw artifactErrors.INVALID_CURSOR({});
  return { createdAt: parsed[0], id: parsed[1] };
}

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
  const scope = scopeOf(req.planId);
  const after = afterOf(deps, scope, req.cursor);
  if (req.planId !== undefined && !isUuid(req.planId)) return { outputs: [] };
  const limit = Math.min(Math.max(req.limit ?? DEFAULT_LIMIT, 1), MAX_LIMIT);
  // One row more than the page tells whether another page follows.
  const rows = await inTenant(deps.db, ctx, (trx) => listOutputsPage(trx, req.planId, after, limit + 1));
  const page = rows.slice(0, limit);
  const last = page.at(-1);
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
    nextCursor:
      rows.length > limit && last
        ? deps.reads.cursors.seal(scope, JSON.stringify([last.created_at_text, last.id]))
        : undefined,
  };
}
