import { extractionV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { canonicalJson } from '../core/canonical.js';
import { scoreFields } from '../core/confidence.js';
import { withPages } from '../core/source-pages.js';
import { type HandleClaims, idempotencyKeyOf, MAX_HANDLE_CHARS, openHandle, principalDigest } from '../core/handle.js';
import { checkSourceText } from '../core/source-text.js';
import { extractionErrors, toExtractionError } from '../errors.js';
import { invalidAnswer } from '../invalid-answer.js';
import { toExtractedField } from '../result-messages.js';
import { sourceHash } from '../sampling.js';
import { guardSchema } from '../schema/guard-schema.js';
import type { ExtractionServiceDeps } from './deps.js';
import type { PendingSubmission } from '../store/pending-submissions.js';

/** What the caller's model is recorded as: it does not say which model it is. */
const CLIENT_MODEL = 'client-model';

/**
 * SubmitExtraction: open the handle (ours, untampered, unexpired, this org and principal — any
 * failure is HANDLE_NOT_FOUND) → the schema and source it was issued for: kept for it in
 * PostgreSQL (a missing, expired or foreign row is HANDLE_NOT_FOUND too), or as the caller sends
 * them again, which must then hash to the handle's; an artifact's text is reloaded, same org →
 * guard the schema → validate the data (EXTRACTION_INVALID naming the fields) → score every value
 * against the source → store under the handle's idempotency key (row + content.created, once per
 * handle) → answer. A repeat with the same data answers the same; a repeat with other data is
 * HANDLE_ALREADY_USED. Nothing before the store has side effects.
 */
export async function submitExtraction(
  deps: ExtractionServiceDeps,
  req: extractionV1.SubmitExtractionRequest,
  ctx: CallContext,
): Promise<extractionV1.SubmitExtractionResponse> {
  try {
    return await submit(deps, req, ctx);
  } catch (error) {
    throw toExtractionError(error, { timeoutMs: deps.timeoutMs, callerSignal: ctx.signal });
  }
}

async function submit(
  deps: ExtractionServiceDeps,
  req: extractionV1.SubmitExtractionRequest,
  ctx: CallContext,
): Promise<extractionV1.SubmitExtractionResponse> {
  const nowMs = (deps.now ?? Date.now)();
  const who = principalDigest(ctx.identity);
  const claims =
    typeof req.handle === 'string' && req.handle.length <= MAX_HANDLE_CHARS
      ? openHandle(req.handle, deps.handleKey, {
          org: ctx.identity.orgId,
          who,
          nowSeconds: Math.floor(nowMs / 1000),
        })
      : undefined;
  if (!claims) throw extractionErrors.HANDLE_NOT_FOUND();
  if (!req.data) throw extractionErrors.INVALID_ARGUMENT({ field: 'data', rule: 'is required (a JSON object)' });

  // What the caller did not send again is read from what was kept for the handle.
  const needsText = claims.artifactId === undefined && req.sourceText === undefined;
  const kept =
    !req.extractionSchema || needsText
      ? await keptFor(deps, claims, { orgId: ctx.identity.orgId, principal: who }, nowMs)
      : undefined;
  const schema = req.extractionSchema ?? kept?.extractionSchema;
  if (!schema)
    throw extractionErrors.INVALID_ARGUMENT({ field: 'extractionSchema', rule: 'is required (the same JSON Schema)' });

  const guarded = await guardSchema(schema, deps.guardOptions);
  if (guarded.hash !== claims.schemaHash) throw extractionErrors.HANDLE_MISMATCH({ field: 'extractionSchema' });
  const keptText = kept && 'text' in kept.source ? kept.source.text : undefined;
  const loaded = claims.artifactId !== undefined ? await deps.artifacts.loadText(ctx, claims.artifactId) : undefined;
  const sourceText = checkSourceText(loaded ? loaded.text : (req.sourceText ?? keptText ?? ''));
  if (sourceHash(sourceText) !== claims.sourceHash) throw extractionErrors.HANDLE_MISMATCH({ field: 'sourceText' });

  const data = req.data;
  const check = guarded.validate(data);
  if (!check.valid) throw invalidAnswer(check);

  const scores = withPages(scoreFields(data, guarded.schema, sourceText), loaded?.pages);
  const fields = scores.fields.map(toExtractedField);
  const stored = await deps.artifacts.storeResult(ctx, {
    data,
    fieldConfidences: scores.fieldConfidences,
    fields,
    overallConfidence: scores.overallConfidence,
    provider: 'client',
    model: CLIENT_MODEL,
    extractionSchema: guarded.schema,
    schemaHash: guarded.hash,
    schemaVersion: claims.schemaVersion,
    source:
      claims.artifactId !== undefined
        ? { $case: 'sourceArtifactId', sourceArtifactId: claims.artifactId }
        : { $case: 'sourceText', sourceText },
    sourceUrl: claims.sourceUrl,
    sourcePage: claims.page,
    sourceSection: claims.section,
    planId: claims.planId,
    stepId: claims.stepId,
    idempotencyKey: idempotencyKeyOf(claims),
  });
  if (stored.replayed && canonicalJson(stored.storedData ?? {}) !== canonicalJson(data))
    throw extractionErrors.HANDLE_ALREADY_USED({ extractionId: stored.extractionId });
  deps.logger.info(
    {
      extractionId: stored.extractionId,
      requestId: ctx.identity.requestId,
      provider: 'client',
      replayed: stored.replayed,
      overallConfidence: scores.overallConfidence,
    },
    'client extraction stored',
  );
  return {
    extractionId: stored.extractionId,
    data,
    fieldConfidences: scores.fieldConfidences,
    overallConfidence: scores.overallConfidence,
    status: extractionV1.ExtractionStatus.EXTRACTION_STATUS_COMPLETED,
    fields,
    provider: 'client',
    handleStatus: stored.replayed
      ? extractionV1.HandleStatus.HANDLE_STATUS_ALREADY_ACCEPTED
      : extractionV1.HandleStatus.HANDLE_STATUS_ACCEPTED,
  };
}

/**
 * The schema and source kept for a handle; undefined for a handle issued without them (before
 * they were kept: the caller sends them again). A handle whose row is gone (expired and swept,
 * or not this org's or principal's) is one that no longer exists.
 */
async function keptFor(
  deps: ExtractionServiceDeps,
  claims: HandleClaims,
  who: { orgId: string; principal: string },
  nowMs: number,
): Promise<Pick<PendingSubmission, 'extractionSchema' | 'source'> | undefined> {
  if (claims.ref === undefined || !deps.submissions) return undefined;
  const kept = await deps.submissions.find(who, claims.ref, new Date(nowMs));
  if (!kept) throw extractionErrors.HANDLE_NOT_FOUND();
  return kept;
}
