import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import { buildExtractionPrompt } from '../prompt.js';
import type { ExtractionProvider, ExtractionRequest, ProviderAnswer } from '../types.js';
import { callWithDeadline, integerOption, isRecord, ProviderError, type CallContext } from './errors.js';

/**
 * Extraction through the Anthropic Messages API. The client's JSON Schema becomes the
 * `input_schema` of one tool (`record_extraction`) that `tool_choice` forces, so the answer
 * arrives as the tool call's `input`: already-parsed JSON shaped by the schema (validated by the
 * caller all the same).
 */
export interface AnthropicProviderOptions {
  apiKey: string;
  /** Any Messages API model id; the default is only a starting point (ANTHROPIC_MODEL in the service config). */
  model?: string;
  /** Default https://api.anthropic.com (the ANTHROPIC_BASE_URL environment variable is not read here). */
  baseURL?: string;
  /** Budget for one extract call, retries and back-off included. Default 60 000. */
  timeoutMs?: number;
  /** Retries of 408/409/429/5xx and connection errors, honouring `retry-after`. Default 2. */
  maxRetries?: number;
  /** Upper bound of the answer's tokens. Default 4096. */
  maxTokens?: number;
  /** The HTTP transport (tests pass undici's fetch bound to a MockAgent). Default: global fetch. */
  fetch?: typeof globalThis.fetch;
}

export const ANTHROPIC_DEFAULT_MODEL = 'claude-sonnet-5-5';
const EXTRACTION_TOOL_NAME = 'record_extraction';

const TOOL_DESCRIPTION =
  'Record the data extracted from the source document. Include only fields whose values the source states; leave out the others.';

export function createAnthropicProvider(options: AnthropicProviderOptions): ExtractionProvider {
  if (!options.apiKey) throw new Error('createAnthropicProvider: apiKey is required');
  const model = options.model ?? ANTHROPIC_DEFAULT_MODEL;
  const timeoutMs = integerOption('createAnthropicProvider', 'timeoutMs', options.timeoutMs ?? 60_000, 1);
  const maxRetries = integerOption('createAnthropicProvider', 'maxRetries', options.maxRetries ?? 2, 0);
  const maxTokens = integerOption('createAnthropicProvider', 'maxTokens', options.maxTokens ?? 4096, 1);
  const client = new Anthropic({
    apiKey: options.apiKey,
    baseURL: options.baseURL ?? 'https://api.anthropic.com',
    timeout: timeoutMs,
    maxRetries,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const ctx: CallContext = {
    provider: 'anthropic',
    label: 'The Anthropic API',
    timeoutMs,
    maxRetries,
    apiKey: options.apiKey,
    sdk: { APIError, APIUserAbortError, APIConnectionTimeoutError, APIConnectionError },
  };

  return {
    name: 'anthropic',
    async extract(request, callOptions = {}) {
      const body = anthropicRequestBody(request, { model, maxTokens });
      const message = await callWithDeadline(ctx, callOptions.signal, (signal) =>
        client.messages.create(body, { signal }),
      );
      return parseAnthropicMessage(message, model);
    },
  };
}

/** The exact Messages API body for one extraction (exported for tests and for the docs). */
function anthropicRequestBody(
  request: ExtractionRequest,
  { model, maxTokens, nonce }: { model: string; maxTokens: number; nonce?: string },
): Anthropic.MessageCreateParamsNonStreaming {
  const prompt = buildExtractionPrompt(request, {
    answerWith: `Answer by calling the ${EXTRACTION_TOOL_NAME} tool exactly once.`,
    ...(nonce === undefined ? {} : { nonce }),
  });
  return {
    model,
    max_tokens: maxTokens,
    system: prompt.system,
    messages: prompt.messages,
    tools: [
      {
        name: EXTRACTION_TOOL_NAME,
        description: TOOL_DESCRIPTION,
        input_schema: request.schema as Anthropic.Tool.InputSchema,
      },
    ],
    tool_choice: { type: 'tool', name: EXTRACTION_TOOL_NAME },
  };
}

/** Turn a Messages API response into an answer, or a typed error when it holds no usable tool call. */
function parseAnthropicMessage(message: Anthropic.Message, requestedModel: string): ProviderAnswer {
  const stop = message.stop_reason;
  if (stop === 'refusal') {
    const why = message.stop_details?.explanation ?? message.stop_details?.category;
    throw new ProviderError(
      'anthropic',
      'PROVIDER_REFUSED',
      `The model refused to extract from this source${why ? ` (${why})` : ''}.`,
    );
  }
  if (stop === 'max_tokens' || stop === 'model_context_window_exceeded') {
    throw new ProviderError(
      'anthropic',
      'PROVIDER_BAD_OUTPUT',
      stop === 'max_tokens'
        ? 'The answer was cut off at the output token limit. Use a smaller schema or source, or raise maxTokens.'
        : "The source and answer do not fit the model's context window. Use a shorter source text.",
    );
  }
  const blocks = Array.isArray(message.content) ? message.content : [];
  const call = blocks.find((block) => block.type === 'tool_use' && block.name === EXTRACTION_TOOL_NAME);
  if (!call || call.type !== 'tool_use') {
    throw new ProviderError(
      'anthropic',
      'PROVIDER_BAD_OUTPUT',
      `The model did not call the ${EXTRACTION_TOOL_NAME} tool (stop reason: ${stop ?? 'none'}), so there is no data.`,
    );
  }
  return {
    data: call.input,
    model: typeof message.model === 'string' && message.model ? message.model : requestedModel,
    ...usageOf(message.usage),
  };
}

/** All input tokens (uncached + cache writes + cache reads, as Anthropic bills them) and output tokens. */
function usageOf(usage: unknown): Pick<ProviderAnswer, 'usage'> {
  if (!isRecord(usage) || typeof usage['input_tokens'] !== 'number' || typeof usage['output_tokens'] !== 'number')
    return {};
  const count = (key: string) => (typeof usage[key] === 'number' ? (usage[key] as number) : 0);
  return {
    usage: {
      inputTokens: count('input_tokens') + count('cache_creation_input_tokens') + count('cache_read_input_tokens'),
      outputTokens: count('output_tokens'),
    },
  };
}
