import { type artifactV1, sourceUrl } from '@quarry/contracts';
import { cursorScope } from '@quarry/cursors';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { artifactSources, artifactTypes } from '../enums.js';
import { artifactErrors } from '../errors.js';
import { readArtifact } from '../store/artifacts.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';
import { budgetOf, readOffset, textPage } from './text-pages.js';

/**
 * GetArtifact: an artifact read back whole, its contentText in pages within the byte budget. The
 * content object comes with the first page when it fits the budget (its size counts against
 * it), else it is left out and said so. A missing, malformed and another org's id are refused alike.
 */
export async function getArtifact(
  deps: ArtifactServiceDeps,
  req: artifactV1.GetArtifactRequest,
  ctx: CallContext,
): Promise<artifactV1.GetArtifactResponse> {
  const row = isUuid(req.id) ? await inTenant(deps.db, ctx, (trx) => readArtifact(trx, req.id)) : undefined;
  if (!row) throw artifactErrors.ARTIFACT_NOT_FOUND({ artifactId: req.id });
  const scope = cursorScope('get_artifact', row.id);
  const offset = readOffset(deps, scope, req.cursor);
  const budget = budgetOf(deps, req.maxBytes);
  const contentJson = JSON.stringify(row.content);
  const contentBytes = Buffer.byteLength(contentJson, 'utf8');
  const firstPage = req.cursor === undefined;
  const withContent = firstPage && contentBytes <= budget;
  const text =
    row.content_text === null
      ? undefined
      : textPage(deps, scope, row.content_text, offset, withContent ? budget - contentBytes : budget);
  return {
    id: row.id,
    artifactType: artifactTypes.valueOf(row.artifact_type as 'analysis'),
    title: row.title,
    content: withContent ? (row.content as Record<string, unknown>) : undefined,
    contentOmitted: firstPage && !withContent,
    contentBytes,
    contentText: text?.text,
    page: text?.page,
    tags: row.tags,
    confidence: row.confidence ?? undefined,
    planId: row.plan_id ?? undefined,
    stepId: row.step_id ?? undefined,
    source: artifactSources.valueOf(row.source),
    createdAt: row.created_at,
    url: sourceUrl('research_artifact', row.id),
  };
}
