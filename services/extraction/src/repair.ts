import type { ExtractionProvider, ExtractionRequest, ProviderAnswer, TokenUsage } from './types.js';

/**
 * One extraction with at most one repair round.
 *
 * A model's answer is validated against the schema; when it fails, a model provider gets exactly
 * one more call that carries its previous answer and the validation errors (most mistakes are a
 * wrong type or a missing field that the model fixes once told). A second failure is final: more
 * rounds cost tokens and time for little gain, and a tool error is the honest result. The offline
 * heuristic extractor is deterministic, so asking it again cannot help: it gets no repair round.
 */

export type ValidationResult = { valid: true } | { valid: false; errors: string[] };

export interface RepairOutcome {
  /** The valid answer (from the first call, or from the repair round). */
  answer: ProviderAnswer;
  /** True when the first answer was invalid and the repair round produced the valid one. */
  repaired: boolean;
  /** Tokens of all calls made, summed; absent when no call reported usage (heuristic, some local servers). */
  usage?: TokenUsage;
}

/** How many validation errors the error message lists (all are kept in `errors`). */
const ERRORS_IN_MESSAGE = 3;

/** The output still failed schema validation after the allowed rounds. */
export class ExtractionInvalidError extends Error {
  override readonly name = 'ExtractionInvalidError';
  readonly errors: readonly string[];
  /** Calls made, 1 or 2. */
  readonly attempts: number;
  /** Tokens spent on the failed calls, for the tool-call log. */
  readonly usage?: TokenUsage;

  constructor(errors: readonly string[], attempts: number, usage?: TokenUsage) {
    const shown = errors.slice(0, ERRORS_IN_MESSAGE).join('; ');
    const more = errors.length > ERRORS_IN_MESSAGE ? ` (and ${errors.length - ERRORS_IN_MESSAGE} more)` : '';
    const rounds = attempts > 1 ? 'after one repair round' : 'and this provider gets no repair round';
    super(`The extracted data does not match the schema ${rounds}: ${shown || 'no details'}${more}.`);
    this.errors = errors;
    this.attempts = attempts;
    if (usage) this.usage = usage;
  }
}

export async function extractWithRepair(
  provider: ExtractionProvider,
  request: ExtractionRequest,
  validate: (data: unknown) => ValidationResult,
  options: { signal?: AbortSignal } = {},
): Promise<RepairOutcome> {
  const first = await provider.extract(request, options);
  const firstCheck = validate(first.data);
  if (firstCheck.valid) return outcome(first, false, first.usage);
  if (provider.name === 'heuristic') throw new ExtractionInvalidError(firstCheck.errors, 1, first.usage);

  const second = await provider.extract(
    { ...request, repair: { previous: first.data, errors: firstCheck.errors } },
    options,
  );
  const usage = sumUsage(first.usage, second.usage);
  const secondCheck = validate(second.data);
  if (secondCheck.valid) return outcome(second, true, usage);
  throw new ExtractionInvalidError(secondCheck.errors, 2, usage);
}

function outcome(answer: ProviderAnswer, repaired: boolean, usage: TokenUsage | undefined): RepairOutcome {
  return usage ? { answer, repaired, usage } : { answer, repaired };
}

/** Sum of the usages that were reported; undefined when none was. */
export function sumUsage(...usages: (TokenUsage | undefined)[]): TokenUsage | undefined {
  const known = usages.filter((u): u is TokenUsage => u !== undefined);
  if (known.length === 0) return undefined;
  return {
    inputTokens: known.reduce((n, u) => n + u.inputTokens, 0),
    outputTokens: known.reduce((n, u) => n + u.outputTokens, 0),
  };
}
