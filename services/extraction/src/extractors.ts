import type { mcpV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import type { GuardedSchema } from './core/schema-guard.js';
import { extractionErrors } from './errors.js';
import type { ExtractionServiceDeps } from './handlers/deps.js';
import { extractWithRepair } from './repair.js';
import { clientModelName, samplingRound } from './sampling.js';
import type { ProviderChoice } from './selection.js';
import type { ExtractionProvider, ExtractionRequest, TokenUsage } from './types.js';
import type { UsageMeter } from './usage-meter.js';

/** What an extractor answered, before it is scored against the source. */
export interface Extracted {
  provider: ProviderChoice;
  data: Record<string, unknown>;
  model: string;
  fieldConfidences?: Readonly<Record<string, number>>;
  /** Tokens as the provider reported them (absent for sampling and the heuristic). */
  usage?: TokenUsage;
}

interface ExtractorCall {
  request: ExtractionRequest;
  guarded: GuardedSchema;
  /** What the gateway passed about the client's sampling (answer and continuation absent in round 1). */
  sampling: mcpV1.ClientSampling;
  ctx: CallContext;
  meter: UsageMeter;
}

/**
 * Extract with `choice`: the client's model through the sampling exchange (sampling.ts), which
 * may first answer with the SamplingRequest to send the client (`ask`); an API model with one
 * repair round; or the offline heuristic. A sampling answer sent to any other extractor is refused.
 */
export async function extractWith(
  deps: ExtractionServiceDeps,
  choice: Exclude<ProviderChoice, 'client'>,
  call: ExtractorCall,
): Promise<Extracted | { ask: mcpV1.SamplingRequest }> {
  const { request, guarded, sampling, meter } = call;
  if (choice === 'sampling') {
    if (sampling.answer) meter.record('sampling', clientModelName(sampling.answer));
    const step = samplingRound({
      request,
      schemaHash: guarded.hash,
      validate: guarded.validate,
      clientSampling: sampling,
      maxTokens: deps.maxTokens,
    });
    if (step.kind === 'ask') return { ask: step.samplingRequest };
    return { provider: 'sampling', data: step.data as Record<string, unknown>, model: step.model };
  }
  if (sampling.answer) {
    throw extractionErrors.INVALID_ARGUMENT({
      field: 'clientSampling.continuation',
      rule: 'is not valid: the sampling continuation does not belong to this call',
    });
  }
  return choice === 'heuristic'
    ? heuristicExtraction(deps.providers.heuristic, call)
    : modelExtraction(deps, choice, call);
}

/** An Anthropic or OpenAI-compatible model, with one repair round, each call under its own deadline. */
async function modelExtraction(
  deps: ExtractionServiceDeps,
  choice: 'anthropic' | 'openai',
  { request, guarded, ctx, meter }: ExtractorCall,
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

/**
 * The offline extractor: no repair round (it is deterministic), and it never guesses: when it
 * cannot find a required, non-nullable field, its answer fails validation and the call is
 * EXTRACTION_INVALID, naming the missing fields and suggesting fewer required fields or a model.
 * Storing a result that does not match the caller's schema would break the tool's one promise
 * (data valid against the schema), and filling the field with a placeholder would be a guess.
 */
async function heuristicExtraction(
  provider: ExtractionProvider,
  { request, guarded, ctx, meter }: ExtractorCall,
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
