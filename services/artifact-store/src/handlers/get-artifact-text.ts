import type { artifactV1 } from '@quarry/contracts';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { artifactText } from '../core/indexed-text.js';
import { artifactErrors } from '../errors.js';
import { findArtifact } from '../store/artifacts.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';

/**
 * GetArtifactText: the text of one of the caller's artifacts (for extraction). A missing,
 * malformed and another org's artifact id are refused alike, so an id reveals nothing.
 */
export async function getArtifactText(
  deps: ArtifactServiceDeps,
  req: artifactV1.GetArtifactTextRequest,
  ctx: CallContext,
): Promise<artifactV1.GetArtifactTextResponse> {
  const row = isUuid(req.artifactId)
    ? await inTenant(deps.db, ctx, (trx) => findArtifact(trx, req.artifactId))
    : undefined;
  if (!row) throw artifactErrors.ARTIFACT_NOT_FOUND({ artifactId: req.artifactId });
  return {
    artifactId: row.id,
    title: row.title,
    text: artifactText(row.content_text, row.content),
    planId: row.plan_id ?? undefined,
  };
}
