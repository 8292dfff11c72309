import { artifactV1, extractionV1, mcpV1 } from '@quarry/contracts';
import { type CallContext, unary } from '@quarry/grpc';
import type { Logger } from 'pino';
import type { ArtifactPort } from './artifacts.js';
import { scoreFields } from './core/confidence.js';
import { checkSourceText, type GuardedSchema, type GuardOptions } from './core/schema-guard.js';
import { guardSchema } from './schema/guard-schema.js';
import { extractionErrors, toExtractionError, type ModelUsage } from './errors.js';
import { ProviderError } from './providers/errors.js';
import { extractWithRepair } from './repair.js';
import { clientModelName, samplingRound } from './sampling.js';
import { chooseProvider, type ConfiguredProvider, type ExtractionProviders, type ProviderChoice } from './selection.js';
import type { ExtractionProvider, ExtractionRequest, FieldScore, GroundingKind, TokenUsage } from './types.js';

export interface ExtractionServiceDeps {
  artifacts: ArtifactPort;
  providers: ExtractionProviders;
  /** EXTRACTION_PROVIDER. */
  provider: ConfiguredProvider;
  /** EXTRACTION_SAMPLING: ask clients that can sample. */
  samplingEnabled: boolean;
  /** EXTRACTION_TIMEOUT: the budget of one model call (retries included); the repair round gets its own. */
  timeoutMs: number;
  /** EXTRACTION_MAX_TOKENS, for sampling requests (API providers were built with it). */
  maxTokens: number;
  logger: Logger;
  /** Time bounds of the schema guard (tests); the guard's defaults otherwise. */
  guardOptions?: GuardOptions;
}

interface Extracted {
  provider: ProviderChoice;
  data: Record<string, unknown>;
  model: string;
  fieldConfidences?: Readonly<Record<string, number>>;
  /** Tokens as the provider reported them (absent for sampling and the heuristic). */
  usage?: TokenUsage;
}

/**
 * The ExtractionService. One call: check the arguments → guard the schema → read the source
 * (inline, or the artifact's text from the artifact store, same org only) → choose who extracts
 * (chooseProvider) → before a model is asked, check that the result's plan and step would be
 * accepted → extract and validate (one repair round for models; the client's model
 * through the sampling exchange of sampling.ts) → score every field against the source → store
 * the result through the artifact store (row + content.created event in one transaction) →
 * answer. Everything before the store is side-effect free, so any failure stores nothing.
 *
 * The heuristic gets no repair round (it is deterministic) and never guesses: when it cannot find
 * a required, non-nullable field, its answer fails validation and the call is EXTRACTION_INVALID,
 * naming the missing fields and suggesting fewer required fields or a model. Storing a result
 * that does not match the caller's schema would break the tool's one promise (data valid
 * against the schema), and filling the field with a placeholder would be a guess.
 */
export function createExtractionService(deps: ExtractionServiceDeps): extractionV1.ExtractionServiceServer {
  return {
    extractData: unary(async (req: extractionV1.ExtractDataRequest, ctx): Promise<extractionV1.ExtractDataResponse> => {
      const meter = new UsageMeter();
      try {
        return await extractData(deps, req, ctx, meter);
      } catch (error) {
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
    }),
  };
}

async function extractData(
  deps: ExtractionServiceDeps,
  req: extractionV1.ExtractDataRequest,
  ctx: CallContext,
  meter: UsageMeter,
): Promise<extractionV1.ExtractDataResponse> {
  const args = readArguments(req);
  const guarded = await guardSchema(args.schema, deps.guardOptions);
  const sourceText = checkSourceText(
    'text' in args.source ? args.source.text : (await deps.artifacts.loadText(ctx, args.source.artifactId)).text,
  );
  const sampling = req.clientSampling ?? { available: false, continuation: Buffer.alloc(0) };
  const choice = chooseProvider({
    configured: deps.provider,
    samplingEnabled: deps.samplingEnabled,
    clientSamplingAvailable: sampling.available,
    hasAnthropic: deps.providers.anthropic !== undefined,
    hasOpenAi: deps.providers.openai !== undefined,
  });
  const request: ExtractionRequest = { schema: guarded.schema, sourceText };
  // A model call costs tokens and seconds (ours, or the client's when sampling): spend them only
  // on a result that can be stored. The heuristic is cheaper than the check; storing checks anyway.
  const asksAModel = choice !== 'heuristic' && !sampling.answer;
  if (asksAModel && args.planId !== undefined) await deps.artifacts.checkTarget(ctx, args.planId, args.stepId);

  let extracted: Extracted;
  if (choice === 'sampling') {
    if (sampling.answer) meter.record('sampling', clientModelName(sampling.answer));
    const step = samplingRound({
      request,
      schemaHash: guarded.hash,
      validate: guarded.validate,
      clientSampling: sampling,
      maxTokens: deps.maxTokens,
    });
    if (step.kind === 'ask') return askClient(step.samplingRequest);
    extracted = { provider: 'sampling', data: step.data as Record<string, unknown>, model: step.model };
  } else {
    if (sampling.answer) {
      throw extractionErrors.INVALID_ARGUMENT({
        field: 'clientSampling.continuation',
        rule: 'is not valid: the sampling continuation does not belong to this call',
      });
    }
    extracted =
      choice === 'heuristic'
        ? await heuristicExtraction(deps.providers.heuristic, request, guarded, ctx, meter)
        : await modelExtraction(deps, choice, request, guarded, ctx, meter);
  }

  const scores = scoreFields(extracted.data, guarded.schema, sourceText, extracted.fieldConfidences ?? {});
  const fields = scores.fields.map(toExtractedField);
  const extractionId = await deps.artifacts.storeResult(ctx, {
    data: extracted.data,
    fieldConfidences: scores.fieldConfidences,
    fields,
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
  });
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
  return {
    extractionId,
    data: extracted.data,
    fieldConfidences: scores.fieldConfidences,
    overallConfidence: scores.overallConfidence,
    status: extractionV1.ExtractionStatus.EXTRACTION_STATUS_COMPLETED,
    fields,
    provider: extracted.provider,
    model: extracted.model,
    modelUsage,
  };
}

/** An Anthropic or OpenAI-compatible model, with one repair round, each call under its own deadline. */
async function modelExtraction(
  deps: ExtractionServiceDeps,
  choice: 'anthropic' | 'openai',
  request: ExtractionRequest,
  guarded: GuardedSchema,
  ctx: CallContext,
  meter: UsageMeter,
): Promise<Extracted> {
  const provider = deps.providers[choice]!;
  const metered: ExtractionProvider = {
    name: provider.name,
    async extract(req) {
      const answer = await provider.extract(req, {
        signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(deps.timeoutMs)]),
      });
      meter.record(choice, answer.model, answer.usage);
      return answer;
    },
  };
  const outcome = await extractWithRepair(metered, request, guarded.validate);
  return {
    provider: choice,
    data: outcome.answer.data as Record<string, unknown>,
    model: outcome.answer.model,
    ...(outcome.answer.fieldConfidences ? { fieldConfidences: outcome.answer.fieldConfidences } : {}),
    ...(outcome.usage ? { usage: outcome.usage } : {}),
  };
}

/** How many validation errors the heuristic's EXTRACTION_INVALID message lists (details.errors has all). */
const HEURISTIC_ERRORS_SHOWN = 5;

/** The offline extractor: no repair round, and a missing required field is reported, not filled. */
async function heuristicExtraction(
  provider: ExtractionProvider,
  request: ExtractionRequest,
  guarded: GuardedSchema,
  ctx: CallContext,
  meter: UsageMeter,
): Promise<Extracted> {
  const answer = await provider.extract(request, { signal: ctx.signal });
  meter.record('heuristic', answer.model);
  const check = guarded.validate(answer.data);
  if (!check.valid) {
    const shown = check.errors.slice(0, HEURISTIC_ERRORS_SHOWN).join('; ');
    const more =
      check.errors.length > HEURISTIC_ERRORS_SHOWN ? ` (and ${check.errors.length - HEURISTIC_ERRORS_SHOWN} more)` : '';
    throw extractionErrors.EXTRACTION_INVALID(
      {
        message:
          `The offline extractor (heuristic, no model) could not fill the schema: ${shown}${more}. ` +
          'It leaves out what the text does not plainly state instead of guessing. Make only the fields the text surely states required, ' +
          'or extract with a model (a client that supports MCP sampling, or a model provider configured on the server).',
      },
      { details: { errors: check.errors, attempts: 1, provider: 'heuristic' } },
    );
  }
  return {
    provider: 'heuristic',
    data: answer.data as Record<string, unknown>,
    model: answer.model,
    ...(answer.fieldConfidences ? { fieldConfidences: answer.fieldConfidences } : {}),
  };
}

/** The reply that asks the caller's model first: only the SamplingRequest (nothing is stored). */
function askClient(samplingRequest: mcpV1.SamplingRequest): extractionV1.ExtractDataResponse {
  return {
    extractionId: '',
    fieldConfidences: {},
    overallConfidence: 0,
    status: extractionV1.ExtractionStatus.EXTRACTION_STATUS_UNSPECIFIED,
    fields: [],
    provider: 'sampling',
    model: '',
    samplingRequest,
  };
}

/** Provider, model and tokens of the model answers a call received (summed), for the tool-call log. */
class UsageMeter {
  total: ModelUsage | undefined;

  record(provider: ProviderChoice, model: string, usage?: TokenUsage): void {
    this.total = {
      provider,
      model,
      inputTokens: (this.total?.inputTokens ?? 0) + (usage?.inputTokens ?? 0),
      outputTokens: (this.total?.outputTokens ?? 0) + (usage?.outputTokens ?? 0),
    };
  }
}

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
  };
}

interface ExtractionArguments {
  source: { text: string } | { artifactId: string };
  schema: Record<string, unknown>;
  schemaVersion: number;
  planId?: string;
  stepId?: string;
  sourceUrl?: string;
  page?: number;
  section?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_SCHEMA_VERSION = 1_000_000;
const MAX_URL_CHARS = 2048;
const MAX_SECTION_CHARS = 500;

/** The arguments, checked as the tool's input schema says (the gateway checks them too; internal callers may not). */
function readArguments(req: extractionV1.ExtractDataRequest): ExtractionArguments {
  const invalid = (field: string, rule: string) => extractionErrors.INVALID_ARGUMENT({ field, rule });
  const source = req.source;
  if (!source) throw invalid('sourceText', 'or `sourceArtifactId` is required (exactly one of them)');
  if (source.$case === 'sourceArtifactId' && !UUID.test(source.sourceArtifactId))
    throw invalid('sourceArtifactId', 'must be a UUID');
  if (!req.extractionSchema) throw invalid('extractionSchema', 'is required (a JSON Schema object)');
  const schemaVersion = req.schemaVersion ?? 1;
  if (!Number.isInteger(schemaVersion) || schemaVersion < 1 || schemaVersion > MAX_SCHEMA_VERSION) {
    throw invalid('schemaVersion', `must be an integer from 1 to ${MAX_SCHEMA_VERSION}`);
  }
  if (req.planId !== undefined && !UUID.test(req.planId)) throw invalid('planId', 'must be a UUID');
  if (req.stepId !== undefined && !UUID.test(req.stepId)) throw invalid('stepId', 'must be a UUID');
  if (req.stepId !== undefined && req.planId === undefined)
    throw invalid('stepId', 'needs planId (the plan the step belongs to)');
  if (req.sourceUrl !== undefined && (req.sourceUrl.length > MAX_URL_CHARS || !URL.canParse(req.sourceUrl))) {
    throw invalid('sourceUrl', `must be an absolute URL of at most ${MAX_URL_CHARS} characters`);
  }
  const { page, section } = req.sourceLocation ?? {};
  if (page !== undefined && page < 1) throw invalid('sourceLocation.page', 'must be at least 1');
  if (section !== undefined && (section.length < 1 || section.length > MAX_SECTION_CHARS)) {
    throw invalid('sourceLocation.section', `must be 1 to ${MAX_SECTION_CHARS} characters`);
  }
  return {
    source: source.$case === 'sourceText' ? { text: source.sourceText } : { artifactId: source.sourceArtifactId },
    schema: req.extractionSchema,
    schemaVersion,
    ...(req.planId === undefined ? {} : { planId: req.planId }),
    ...(req.stepId === undefined ? {} : { stepId: req.stepId }),
    ...(req.sourceUrl === undefined ? {} : { sourceUrl: req.sourceUrl }),
    ...(page === undefined ? {} : { page }),
    ...(section === undefined ? {} : { section }),
  };
}
