import { createHash } from 'node:crypto';
import { type artifactV1, sourceUrl } from '@quarry/contracts';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { artifactSources, artifactTypes } from '../enums.js';
import { artifactErrors } from '../errors.js';
import { type ArtifactFilters, listArtifactsPage } from '../store/artifacts.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/** A cursor belongs to one set of filters: the same page position means nothing under others. */
function scopeOf(filters: ArtifactFilters): string {
  const key = JSON.stringify([
    filters.planId ?? null,
    filters.artifactType ?? null,
    [...filters.tags].sort(),
    filters.createdSince?.toISOString() ?? null,
  ]);
  return `list_artifacts:${createHash('sha256').update(key).digest('base64url').slice(0, 22)}`;
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
  const scope = scopeOf(filters);
  const after = afterOf(deps, scope, req.cursor);
  if (filters.planId !== undefined && !isUuid(filters.planId)) return { artifacts: [] };
  const limit = Math.min(Math.max(req.limit ?? DEFAULT_LIMIT, 1), MAX_LIMIT);
  // One row more than the page tells whether another page follows.
  const rows = await inTenant(deps.db, ctx, (trx) => listArtifactsPage(trx, filters, after, limit + 1));
  const page = rows.slice(0, limit);
  const last = page.at(-1);
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
    nextCursor:
      rows.length > limit && last
        ? deps.reads.cursors.seal(scope, JSON.stringify([last.created_at_text, last.id]))
        : undefined,
  };
}
