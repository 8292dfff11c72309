import { artifactV1, extractionV1, type mcpV1 } from '@quarry/contracts';
import type { ExtractionArguments } from './core/arguments.js';
import type { FieldScores } from './core/confidence.js';
import type { GuardedSchema } from './core/schema-guard.js';
import type { ModelUsage } from './errors.js';
import type { Extracted } from './extractors.js';
import type { FieldScore, GroundingKind } from './types.js';

// An extraction as proto messages: the result the artifact store stores, and the caller's answer.

const GROUNDING: Readonly<Record<GroundingKind, artifactV1.GroundingKind>> = {
  exact: artifactV1.GroundingKind.GROUNDING_KIND_EXACT,
  normalised: artifactV1.GroundingKind.GROUNDING_KIND_NORMALISED,
  numeric: artifactV1.GroundingKind.GROUNDING_KIND_NUMERIC,
  date: artifactV1.GroundingKind.GROUNDING_KIND_DATE,
  fuzzy: artifactV1.GroundingKind.GROUNDING_KIND_FUZZY,
  none: artifactV1.GroundingKind.GROUNDING_KIND_NONE,
};

export function toExtractedField(field: FieldScore): artifactV1.ExtractedField {
  return {
    path: field.path,
    grounding: GROUNDING[field.grounding],
    ...(field.span ? { spanStart: field.span.start, spanEnd: field.span.end } : {}),
    confidence: field.confidence,
    ...(field.page === undefined ? {} : { page: field.page }),
  };
}

/** The scored result as the artifact store stores it (row and content.created event in one transaction). */
export function storeRequest(
  args: ExtractionArguments,
  guarded: GuardedSchema,
  sourceText: string,
  extracted: Extracted,
  scores: FieldScores,
  /** Stores the result once under this key (a job run again after its instance stopped). */
  idempotencyKey?: string,
): artifactV1.StoreExtractionResultRequest {
  return {
    data: extracted.data,
    fieldConfidences: scores.fieldConfidences,
    fields: scores.fields.map(toExtractedField),
    overallConfidence: scores.overallConfidence,
    provider: extracted.provider,
    model: extracted.model,
    extractionSchema: guarded.schema,
    schemaHash: guarded.hash,
    schemaVersion: args.schemaVersion,
    source:
      'text' in args.source
        ? { $case: 'sourceText', sourceText }
        : { $case: 'sourceArtifactId', sourceArtifactId: args.source.artifactId },
    sourceUrl: args.sourceUrl,
    sourcePage: args.page,
    sourceSection: args.section,
    planId: args.planId,
    stepId: args.stepId,
    inputTokens: extracted.usage?.inputTokens,
    outputTokens: extracted.usage?.outputTokens,
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
  };
}

/** The caller's answer once the result is stored. */
export function completedResponse(
  extractionId: string,
  extracted: Extracted,
  scores: FieldScores,
  modelUsage: ModelUsage,
): extractionV1.ExtractDataResponse {
  return {
    extractionId,
    data: extracted.data,
    fieldConfidences: scores.fieldConfidences,
    overallConfidence: scores.overallConfidence,
    status: extractionV1.ExtractionStatus.EXTRACTION_STATUS_COMPLETED,
    fields: scores.fields.map(toExtractedField),
    provider: extracted.provider,
    model: extracted.model,
    handleStatus: extractionV1.HandleStatus.HANDLE_STATUS_UNSPECIFIED,
    modelUsage,
  };
}

/** The reply that asks the caller's model first: only the SamplingRequest (nothing is stored). */
export function askClient(samplingRequest: mcpV1.SamplingRequest): extractionV1.ExtractDataResponse {
  return {
    extractionId: '',
    fieldConfidences: {},
    overallConfidence: 0,
    status: extractionV1.ExtractionStatus.EXTRACTION_STATUS_UNSPECIFIED,
    fields: [],
    provider: 'sampling',
    model: '',
    handleStatus: extractionV1.HandleStatus.HANDLE_STATUS_UNSPECIFIED,
    samplingRequest,
  };
}
