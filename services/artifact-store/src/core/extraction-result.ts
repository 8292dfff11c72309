import type { artifactV1 } from '@quarry/contracts';
import { type Grounding, groundings } from '../enums.js';
import { artifactErrors } from '../errors.js';
import type { NewRow } from '../store/schema.js';
import { jsonBody, textBody } from './bodies.js';
import { extractionText, extractionTitle } from './indexed-text.js';
import type { ContentEvent } from './writes.js';

export const EXTRACTION_PROVIDERS = ['anthropic', 'openai', 'sampling', 'client', 'heuristic'] as const;
export type ExtractionProvider = (typeof EXTRACTION_PROVIDERS)[number];

/** An extraction result row as stored, without its org (the caller's). */
export type ExtractionRow = NewRow<'artifact.extraction_results'>;

/** One entry of the `fields` column: how a value was found in the source, and its confidence. */
export interface StoredField {
  path: string;
  grounding: Grounding;
  spanStart?: number;
  spanEnd?: number;
  confidence: number;
  /** The page (slide, sheet) of the source document the span is on. */
  page?: number;
}

const MAX_INT32 = 2_147_483_647;
const SCHEMA_HASH = /^[0-9a-f]{64}$/;
// The same bounds as extract_data's own arguments (quarry.extraction.v1).
const MAX_URL_CHARS = 2048;
const MAX_SECTION_CHARS = 500;
const MAX_MODEL_CHARS = 200;
const MAX_IDEMPOTENCY_KEY_CHARS = 200;

const invalid = (field: string, rule: string) => artifactErrors.INVALID_ARGUMENT({ field, rule });
const isConfidence = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= 1;
const isPointer = (path: string) => path === '' || path.startsWith('/');

function wholeIn(field: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw invalid(field, `must be a whole number from ${min} to ${max}`);
  return value;
}

function charsIn(field: string, value: string, max: number): string {
  if (!value.trim() || value.length > max) throw invalid(field, `must be 1–${max} characters, not blank`);
  return value;
}

/** An optional field: null when absent, else checked. */
const optional = <T, R>(value: T | undefined, check: (v: T) => R): R | null =>
  value === undefined ? null : check(value);

function storedField(field: artifactV1.ExtractedField, i: number): StoredField {
  const at = `fields[${i}]`;
  if (!isPointer(field.path)) throw invalid(`${at}.path`, 'must be a JSON Pointer ("" or starting with "/")');
  if (!isConfidence(field.confidence)) throw invalid(`${at}.confidence`, 'must be a number from 0 to 1');
  const grounding = groundings.required(field.grounding, `${at}.grounding`);
  const { spanStart, spanEnd } = field;
  if ((spanStart === undefined) !== (spanEnd === undefined))
    throw invalid(`${at}.spanEnd`, 'must be given together with spanStart');
  if (spanStart === undefined || spanEnd === undefined)
    return { path: field.path, grounding, confidence: field.confidence };
  if (!Number.isInteger(spanStart) || !Number.isInteger(spanEnd) || spanStart < 0 || spanEnd < spanStart) {
    throw invalid(`${at}.spanEnd`, 'must be a character offset at or after spanStart');
  }
  const page = field.page === undefined ? undefined : wholeIn(`${at}.page`, field.page, 1, MAX_INT32);
  return { path: field.path, grounding, spanStart, spanEnd, confidence: field.confidence, ...(page ? { page } : {}) };
}

/**
 * Validate a StoreExtractionResult request completely (throwing INVALID_ARGUMENT naming the
 * field, or CONTENT_TOO_LARGE) and return the row to insert. Pure: plan references and the
 * source artifact are checked by the handler, which owns the I/O.
 */
export function extractionRow(req: artifactV1.StoreExtractionResultRequest): ExtractionRow {
  if (!req.data) throw invalid('data', 'is required (a JSON object)');
  if (!req.extractionSchema) throw invalid('extractionSchema', 'is required (a JSON object)');
  if (!(EXTRACTION_PROVIDERS as readonly string[]).includes(req.provider))
    throw invalid('provider', `must be one of ${EXTRACTION_PROVIDERS.join(', ')}`);
  const model = charsIn('model', req.model, MAX_MODEL_CHARS);
  if (!SCHEMA_HASH.test(req.schemaHash))
    throw invalid('schemaHash', "must be the schema's SHA-256 as 64 lowercase hex digits");
  const schemaVersion = wholeIn('schemaVersion', req.schemaVersion, 1, MAX_INT32);
  if (!isConfidence(req.overallConfidence)) throw invalid('overallConfidence', 'must be a number from 0 to 1');
  for (const [path, confidence] of Object.entries(req.fieldConfidences)) {
    if (!isPointer(path))
      throw invalid(
        'fieldConfidences',
        `keys must be JSON Pointers ("" or starting with "/"), not ${JSON.stringify(path)}`,
      );
    if (!isConfidence(confidence))
      throw invalid(`fieldConfidences[${JSON.stringify(path)}]`, 'must be a number from 0 to 1');
  }
  const fields = req.fields.map(storedField);
  if (!req.source) throw invalid('source', 'is required: sourceArtifactId or sourceText');
  if (req.source.$case === 'sourceText' && !req.source.sourceText) throw invalid('sourceText', 'must not be empty');
  if (req.stepId !== undefined && req.planId === undefined)
    throw invalid('stepId', 'needs planId (the plan the step belongs to)');
  return {
    plan_id: req.planId ?? null,
    step_id: req.stepId ?? null,
    data: jsonBody('data', req.data),
    field_confidences: jsonBody('fieldConfidences', req.fieldConfidences),
    fields: jsonBody('fields', fields),
    overall_confidence: req.overallConfidence,
    provider: req.provider as ExtractionProvider,
    model,
    extraction_schema: jsonBody('extractionSchema', req.extractionSchema),
    schema_hash: req.schemaHash,
    schema_version: schemaVersion,
    source_artifact_id: req.source.$case === 'sourceArtifactId' ? req.source.sourceArtifactId : null,
    source_text: req.source.$case === 'sourceText' ? textBody('sourceText', req.source.sourceText) : null,
    source_url: optional(req.sourceUrl, (v) => charsIn('sourceUrl', v, MAX_URL_CHARS)),
    source_page: optional(req.sourcePage, (v) => wholeIn('sourcePage', v, 1, MAX_INT32)),
    source_section: optional(req.sourceSection, (v) => charsIn('sourceSection', v, MAX_SECTION_CHARS)),
    input_tokens: optional(req.inputTokens, (v) => wholeIn('inputTokens', v, 0, Number.MAX_SAFE_INTEGER)),
    output_tokens: optional(req.outputTokens, (v) => wholeIn('outputTokens', v, 0, Number.MAX_SAFE_INTEGER)),
    idempotency_key: optional(req.idempotencyKey, (v) => charsIn('idempotencyKey', v, MAX_IDEMPOTENCY_KEY_CHARS)),
  };
}

/** The content.created event of an extraction result: one line per extracted value. */
export function extractionEvent(req: artifactV1.StoreExtractionResultRequest): ContentEvent {
  return {
    sourceTable: 'extraction_result',
    planId: req.planId,
    stepId: req.stepId,
    title: extractionTitle(req.extractionSchema, req.data, req.schemaHash),
    text: extractionText(req.data),
  };
}
