import type { artifactV1 } from '@quarry/contracts';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { unitsOf } from '../core/document-pages.js';
import { artifactText } from '../core/indexed-text.js';
import { retag } from '../core/tags.js';
import { artifactErrors } from '../errors.js';
import { lockArtifact, setArtifactTags } from '../store/artifacts.js';
import { readDocumentInfo } from '../store/documents.js';
import { appendEvent } from '../store/outbox.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';

/**
 * UpdateArtifactTags: the new tag set and, when it changed, a new version of the artifact's
 * content.created event in the same transaction (same source, same text and title, the new
 * tags, a document's pages), so the indexer re-upserts it and search by tag follows. An unchanged set writes
 * nothing, so retries are free. A missing, malformed and another org's id are refused alike.
 */
export async function updateArtifactTags(
  deps: ArtifactServiceDeps,
  req: artifactV1.UpdateArtifactTagsRequest,
  ctx: CallContext,
): Promise<artifactV1.UpdateArtifactTagsResponse> {
  const notFound = () => artifactErrors.ARTIFACT_NOT_FOUND({ artifactId: req.id });
  if (!isUuid(req.id)) throw notFound();
  return inTenant(deps.db, ctx, async (trx) => {
    const row = await lockArtifact(trx, req.id);
    if (!row) throw notFound();
    const { tags, changed } = retag(row.tags, req.add, req.remove);
    if (changed) {
      await setArtifactTags(trx, row.id, tags);
      // A source document's event carries its pages again, or its chunks would lose them.
      const document = await readDocumentInfo(trx, row.id);
      await appendEvent(
        trx,
        ctx,
        { id: row.id, createdAt: row.created_at },
        {
          sourceTable: 'research_artifact',
          planId: row.plan_id ?? undefined,
          stepId: row.step_id ?? undefined,
          artifactType: row.artifact_type,
          title: row.title,
          text: artifactText(row.content_text, row.content),
          tags: tags.length ? tags : undefined,
          units: document && unitsOf(document.unit_kind, document.units),
        },
      );
    }
    return { id: row.id, tags, changed };
  });
}
