import { createHash } from 'node:crypto';
import { type artifactV1, sourceUrl } from '@quarry/contracts';
import { cursorScope } from '@quarry/cursors';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { mimeTypeOf } from '../core/media-types.js';
import { type MediaType, mediaTypes } from '../enums.js';
import { artifactErrors } from '../errors.js';
import { readOutput } from '../store/outputs.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';
import { budgetOf, readOffset, textPage } from './text-pages.js';

/**
 * GetResearchOutput: a deliverable read back. Text forms come as text in pages within the byte
 * budget; a binary document comes whole (the store holds at most 2 MiB of it) in `document`,
 * which the gateway turns into an MCP embedded resource, byte for byte as stored.
 */
export async function getResearchOutput(
  deps: ArtifactServiceDeps,
  req: artifactV1.GetResearchOutputRequest,
  ctx: CallContext,
): Promise<artifactV1.GetResearchOutputResponse> {
  const row = isUuid(req.outputId) ? await inTenant(deps.db, ctx, (trx) => readOutput(trx, req.outputId)) : undefined;
  if (!row) throw artifactErrors.OUTPUT_NOT_FOUND({ outputId: req.outputId });
  const scope = cursorScope('get_research_output', row.id);
  const offset = readOffset(deps, scope, req.cursor);
  const mediaType = row.media_type as MediaType;
  const mimeType = mimeTypeOf(mediaType);
  const url = sourceUrl('research_output', row.id);
  const stored = row.content_bytes ?? Buffer.from(row.content_text ?? '', 'utf8');
  const text =
    row.content_text === null
      ? undefined
      : textPage(deps, scope, row.content_text, offset, budgetOf(deps, req.maxBytes));
  return {
    outputId: row.id,
    planId: row.plan_id,
    mediaType: mediaTypes.valueOf(mediaType),
    mimeType,
    title: row.title,
    content: text?.text,
    page: text?.page,
    sizeBytes: row.content_size,
    sha256: createHash('sha256').update(stored).digest('hex'),
    contentSummary: row.content_summary ?? undefined,
    formattingNotesUsed: row.formatting_notes_used ?? undefined,
    createdAt: row.created_at,
    url,
    document: row.content_bytes ? { uri: url, mimeType, blob: row.content_bytes } : undefined,
  };
}
