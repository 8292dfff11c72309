import { type artifactV1, sourceUrl } from '@quarry/contracts';
import { cursorScope } from '@quarry/cursors';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import type { StoredField } from '../core/extraction-result.js';
import { groundings } from '../enums.js';
import { artifactErrors } from '../errors.js';
import { readExtraction } from '../store/extraction-results.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';
import { budgetOf, readOffset, textPage } from './text-pages.js';

/**
 * GetExtraction: a stored extraction result read back. The source text sent with the call comes
 * in pages within the byte budget; the data, confidences and schema come whole on every page
 * (their size is bounded by what the extractor accepted).
 */
export async function getExtraction(
  deps: ArtifactServiceDeps,
  req: artifactV1.GetExtractionRequest,
  ctx: CallContext,
): Promise<artifactV1.GetExtractionResponse> {
  const row = isUuid(req.id) ? await inTenant(deps.db, ctx, (trx) => readExtraction(trx, req.id)) : undefined;
  if (!row) throw artifactErrors.EXTRACTION_NOT_FOUND({ extractionId: req.id });
  const scope = cursorScope('get_extraction', row.id);
  const offset = readOffset(deps, scope, req.cursor);
  const text =
    row.source_text === null ? undefined : textPage(deps, scope, row.source_text, offset, budgetOf(deps, req.maxBytes));
  return {
    id: row.id,
    data: row.data as Record<string, unknown>,
    fieldConfidences: row.field_confidences as Record<string, number>,
    fields: (row.fields as StoredField[]).map((f) => ({ ...f, grounding: groundings.valueOf(f.grounding) })),
    overallConfidence: row.overall_confidence,
    provider: row.provider,
    model: row.model,
    extractionSchema: row.extraction_schema as Record<string, unknown>,
    schemaHash: row.schema_hash,
    schemaVersion: row.schema_version,
    sourceArtifactId: row.source_artifact_id ?? undefined,
    sourceText: text?.text,
    page: text?.page,
    sourceUrl: row.source_url ?? undefined,
    sourcePage: row.source_page ?? undefined,
    sourceSection: row.source_section ?? undefined,
    planId: row.plan_id ?? undefined,
    stepId: row.step_id ?? undefined,
    createdAt: row.created_at,
    url: sourceUrl('extraction_result', row.id),
  };
}
