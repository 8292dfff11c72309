import type { extractionV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { readArguments } from '../core/arguments.js';
import { scoreFields } from '../core/confidence.js';
import { type PageSpan, withPages } from '../core/source-pages.js';
import { checkSourceText } from '../core/source-text.js';
import { clientHandoff } from '../client-handoff.js';
import { extractionErrors, toExtractionError } from '../errors.js';
import { extractWith } from '../extractors.js';
import { ProviderError } from '../providers/errors.js';
import { askClient, completedResponse, storeRequest } from '../result-messages.js';
import { answerWithin } from '../jobs/deferred-reply.js';
import { guardSchema } from '../schema/guard-schema.js';
import { chooseProvider } from '../selection.js';
import { UsageMeter } from '../usage-meter.js';
import type { ExtractionServiceDeps } from './deps.js';

/**
 * ExtractData: check the arguments → guard the schema → read the source (inline, or the
 * artifact's text from the artifact store, same org only) → choose who extracts (the caller's
 * own model gets a signed handle for submit_extraction: client-handoff.ts) → before a model
 * is asked, check that the result's plan and step would be accepted → extract and validate
 * (extractors.ts) → score every field against the source → store the result through the artifact
 * store (row + content.created event in one transaction) → answer. Everything before the store is
 * side-effect free, so any failure stores nothing. A caller with a budget (the gateway's
 * CallBudget) whose extraction needs a server model gets a durable job instead when the model is
 * not done in time (jobs/deferred-reply.ts); the job runs this same call again, to its end.
 */
export async function extractData(
  deps: ExtractionServiceDeps,
  req: extractionV1.ExtractDataRequest,
  ctx: CallContext,
  options: { idempotencyKey?: string } = {},
): Promise<extractionV1.ExtractDataResponse> {
  const meter = new UsageMeter();
  const arrivedMs = Date.now();
  try {
    return await extract(deps, req, ctx, meter, { idempotencyKey: options.idempotencyKey, arrivedMs });
  } catch (error) {
    // Tokens a failed call used count too; a failure to count them must not hide the call's own error.
    await recordSpend(deps, ctx, meter).catch((err: unknown) =>
      deps.logger.warn({ err, requestId: ctx.identity.requestId }, 'model tokens not counted'),
    );
    if (error instanceof ProviderError) {
      // The caller gets a generic message for transport and configuration failures; the operator gets the provider's (key already scrubbed).
      deps.logger.warn(
        {
          requestId: ctx.identity.requestId,
          provider: error.provider,
          code: error.code,
          httpStatus: error.status,
          providerRequestId: error.requestId,
          reason: error.message,
        },
        'extraction model call failed',
      );
    }
    throw toExtractionError(error, {
      ...(meter.total ? { usage: meter.total } : {}),
      timeoutMs: deps.timeoutMs,
      callerSignal: ctx.signal,
    });
  }
}

async function extract(
  deps: ExtractionServiceDeps,
  req: extractionV1.ExtractDataRequest,
  ctx: CallContext,
  meter: UsageMeter,
  { idempotencyKey, arrivedMs }: { idempotencyKey: string | undefined; arrivedMs: number },
): Promise<extractionV1.ExtractDataResponse> {
  const args = readArguments(req);
  const guarded = await guardSchema(args.schema, deps.guardOptions);
  // A stored document's pages come with its text, so each grounded value can name its page.
  const source: { text: string; pages?: PageSpan[] } =
    'text' in args.source ? { text: args.source.text } : await deps.artifacts.loadText(ctx, args.source.artifactId);
  const sourceText = checkSourceText(source.text);
  const sampling = req.clientSampling ?? { available: false, continuation: Buffer.alloc(0) };
  const choice = chooseProvider({
    configured: deps.provider,
    mode: args.mode,
    samplingEnabled: deps.samplingEnabled,
    clientSamplingAvailable: sampling.available,
    hasAnthropic: deps.providers.anthropic !== undefined,
    hasOpenAi: deps.providers.openai !== undefined,
  });
  // A model call costs tokens and seconds (ours, or the client's when sampling): spend them only
  // on a result that can be stored. The heuristic is cheaper than the check; storing checks anyway.
  const asksAModel = choice !== 'heuristic' && !sampling.answer;
  if (asksAModel && args.planId !== undefined) await deps.artifacts.checkTarget(ctx, args.planId, args.stepId);

  if (choice === 'client') {
    if (sampling.answer) {
      throw extractionErrors.INVALID_ARGUMENT({
        field: 'clientSampling.continuation',
        rule: 'is not valid: the sampling continuation does not belong to this call',
      });
    }
    return clientHandoff({
      args,
      guarded,
      sourceText,
      ctx,
      key: deps.handleKey,
      ttlMs: deps.handleTtlMs,
      nowMs: (deps.now ?? Date.now)(),
      submissions: deps.submissions,
    });
  }
  // The budget counts from the call's arrival: guarding the schema and reading the source took some.
  const budgetMs = req.callBudget?.answerWithinMs ?? 0;
  if (budgetMs > 0 && deps.jobs && (choice === 'anthropic' || choice === 'openai'))
    return answerWithin(deps.jobs, req, ctx, choice, Math.max(0, budgetMs - (Date.now() - arrivedMs)));
  const request = { schema: guarded.schema, sourceText };
  // A server model spends Quarry's tokens: counted against the org's day before it is asked.
  if (choice === 'anthropic' || choice === 'openai') await deps.modelQuotas?.admit(ctx);
  const extracted = await extractWith(deps, choice, { request, guarded, sampling, ctx, meter });
  await recordSpend(deps, ctx, meter);
  if ('ask' in extracted) return askClient(extracted.ask);

  const score = () =>
    withPages(scoreFields(extracted.data, guarded.schema, sourceText, extracted.fieldConfidences ?? {}), source.pages);
  let scores = score();
  const stored = await deps.artifacts.storeResult(
    ctx,
    storeRequest(args, guarded, sourceText, extracted, scores, idempotencyKey),
  );
  const { extractionId } = stored;
  if (stored.replayed && stored.storedData) {
    // A job run again after its instance stopped, whose first run had stored: that result stands.
    extracted.data = stored.storedData;
    scores = score();
  }
  const modelUsage = meter.total ?? {
    provider: extracted.provider,
    model: extracted.model,
    inputTokens: 0,
    outputTokens: 0,
  };
  deps.logger.info(
    {
      extractionId,
      requestId: ctx.identity.requestId,
      provider: extracted.provider,
      model: extracted.model,
      overallConfidence: scores.overallConfidence,
      inputTokens: modelUsage.inputTokens,
      outputTokens: modelUsage.outputTokens,
    },
    'extraction stored',
  );
  return completedResponse(extractionId, extracted, scores, modelUsage);
}

/** The tokens a server model used in this call, added to the org's day (once: the meter is then emptied). */
async function recordSpend(deps: ExtractionServiceDeps, ctx: CallContext, meter: UsageMeter): Promise<void> {
  const spent = meter.total;
  if (!deps.modelQuotas || !spent || meter.counted) return;
  if (spent.provider !== 'anthropic' && spent.provider !== 'openai') return;
  const tokens = spent.inputTokens + spent.outputTokens;
  meter.counted = true;
  if (tokens > 0) await deps.modelQuotas.record(ctx, tokens);
}
