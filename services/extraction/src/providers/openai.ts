import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { buildExtractionPrompt } from '../prompt.js';
import type { ExtractionProvider, ExtractionRequest, JsonSchemaObject, ProviderAnswer } from '../types.js';
import { callWithDeadline, integerOption, isRecord, ProviderError, truncate, type CallContext } from './errors.js';

/**
 * Extraction through any OpenAI-compatible chat-completions endpoint: OpenAI itself, and the
 * OpenAI-compatible servers of Ollama (`http://localhost:11434/v1`), vLLM and llama.cpp. The
 * schema goes in `response_format: { type: 'json_schema' }`; the answer is the JSON text of
 * `choices[0].message.content`.
 */
export interface OpenAiProviderOptions {
  /** Bearer token. Optional: local servers (Ollama, llama.cpp) need none, and then no Authorization header is sent. */
  apiKey?: string;
  /** OPENAI_BASE_URL. Default https://api.openai.com/v1. */
  baseURL?: string;
  /** The served model's id, e.g. `gpt-5.1` or `qwen3:8b`. */
  model: string;
  /** Budget for one extract call, retries and back-off included. Default 60 000. */
  timeoutMs?: number;
  /** Retries of 408/409/429/5xx and connection errors, honouring `retry-after`. Default 2. */
  maxRetries?: number;
  /** Upper bound of the answer's tokens. Default 4096. */
  maxTokens?: number;
  /**
   * Which body field carries `maxTokens`. OpenAI's reasoning models accept only
   * `max_completion_tokens`; Ollama and older servers only `max_tokens`. Default:
   * `max_completion_tokens` for api.openai.com, `max_tokens` for every other endpoint.
   */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /**
   * Ask for OpenAI strict structured outputs. Strict mode accepts only a subset of JSON Schema
   * (every object closed with `additionalProperties: false`, every property listed in
   * `required`, a short list of keywords), so `strict: true` is sent only when the schema is in
   * that subset (`fitsOpenAiStrictMode`), otherwise `strict: false`. `false` never asks for it.
   * Default true.
   */
  strict?: boolean;
  /**
   * Also state the schema in the prompt. Servers that enforce `response_format` with a grammar
   * (Ollama, llama.cpp) do not show the schema to the model, and their docs advise repeating it.
   * Default: false for api.openai.com, true for every other endpoint.
   */
  schemaInPrompt?: boolean;
  /** The HTTP transport (tests pass undici's fetch bound to a MockAgent). Default: global fetch. */
  fetch?: typeof globalThis.fetch;
}

const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
const RESPONSE_FORMAT_NAME = 'record_extraction';

export function createOpenAiProvider(options: OpenAiProviderOptions): ExtractionProvider {
  if (!options.model) throw new Error('createOpenAiProvider: model is required');
  const baseURL = options.baseURL ?? OPENAI_DEFAULT_BASE_URL;
  const endpoint = endpointURL(baseURL);
  const official = endpoint.hostname === 'api.openai.com';
  const timeoutMs = integerOption('createOpenAiProvider', 'timeoutMs', options.timeoutMs ?? 60_000, 1);
  const maxRetries = integerOption('createOpenAiProvider', 'maxRetries', options.maxRetries ?? 2, 0);
  const bodyOptions: OpenAiBodyOptions = {
    model: options.model,
    maxTokens: integerOption('createOpenAiProvider', 'maxTokens', options.maxTokens ?? 4096, 1),
    maxTokensField: options.maxTokensField ?? (official ? 'max_completion_tokens' : 'max_tokens'),
    strict: options.strict ?? true,
    schemaInPrompt: options.schemaInPrompt ?? !official,
  };
  const client = new OpenAI({
    // The SDK insists on a key; without one, a placeholder satisfies it and the
    // `authorization: null` default header removes it from every request.
    apiKey: options.apiKey || 'no-key',
    ...(options.apiKey ? {} : { defaultHeaders: { authorization: null } }),
    // Explicit nulls: the SDK would otherwise read OPENAI_ADMIN_KEY, OPENAI_ORG_ID and
    // OPENAI_PROJECT_ID from the environment behind the configuration's back.
    adminAPIKey: null,
    organization: null,
    project: null,
    baseURL,
    timeout: timeoutMs,
    maxRetries,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const ctx: CallContext = {
    provider: 'openai',
    // origin + path only: user info or a query string may hold credentials
    label: official ? 'The OpenAI API' : `The OpenAI-compatible endpoint at ${endpoint.origin}${endpoint.pathname}`,
    timeoutMs,
    maxRetries,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    sdk: { APIError, APIUserAbortError, APIConnectionTimeoutError, APIConnectionError },
  };

  return {
    name: 'openai',
    async extract(request, callOptions = {}) {
      const body = openAiRequestBody(request, bodyOptions);
      const completion = await callWithDeadline(ctx, callOptions.signal, (signal) =>
        client.chat.completions.create(body, { signal }),
      );
      return parseChatCompletion(completion, options.model);
    },
  };
}

export interface OpenAiBodyOptions {
  model: string;
  maxTokens: number;
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  strict: boolean;
  schemaInPrompt: boolean;
  nonce?: string;
}

/** The exact chat-completions body for one extraction (exported for tests and for the docs). */
function openAiRequestBody(
  request: ExtractionRequest,
  options: OpenAiBodyOptions,
): OpenAI.ChatCompletionCreateParamsNonStreaming {
  const prompt = buildExtractionPrompt(request, {
    includeSchema: options.schemaInPrompt,
    ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
  });
  return {
    model: options.model,
    messages: [{ role: 'system', content: prompt.system }, ...prompt.messages],
    response_format: {
      type: 'json_schema',
      json_schema: {
        name: RESPONSE_FORMAT_NAME,
        schema: request.schema,
        strict: options.strict && fitsOpenAiStrictMode(request.schema),
      },
    },
    [options.maxTokensField]: options.maxTokens,
  };
}

/** Turn a chat completion into an answer, or a typed error when it holds no usable JSON. */
function parseChatCompletion(completion: OpenAI.ChatCompletion, requestedModel: string): ProviderAnswer {
  const choice = Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  const message = choice?.message;
  if (!choice || !isRecord(message)) {
    throw new ProviderError(
      'openai',
      'PROVIDER_BAD_OUTPUT',
      'The endpoint answered without a message, so there is no data.',
    );
  }
  if (typeof message.refusal === 'string' && message.refusal) {
    throw new ProviderError(
      'openai',
      'PROVIDER_REFUSED',
      `The model refused to extract from this source: ${truncate(message.refusal, 300)}`,
    );
  }
  if (choice.finish_reason === 'content_filter') {
    throw new ProviderError('openai', 'PROVIDER_REFUSED', "The endpoint's content filter withheld the answer.");
  }
  if (choice.finish_reason === 'length') {
    throw new ProviderError(
      'openai',
      'PROVIDER_BAD_OUTPUT',
      'The answer was cut off at the output token limit. Use a smaller schema or source, or raise maxTokens.',
    );
  }
  if (typeof message.content !== 'string' || !message.content.trim()) {
    throw new ProviderError(
      'openai',
      'PROVIDER_BAD_OUTPUT',
      'The model answered with no content, so there is no data.',
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(unwrapJson(message.content));
  } catch (err) {
    throw new ProviderError(
      'openai',
      'PROVIDER_BAD_OUTPUT',
      `The model's answer is not valid JSON (${(err as Error).message}).`,
    );
  }
  const usage = isRecord(completion.usage) ? completion.usage : undefined;
  return {
    data,
    model: typeof completion.model === 'string' && completion.model ? completion.model : requestedModel,
    ...(usage && typeof usage.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number'
      ? { usage: { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens } }
      : {}),
  };
}

/**
 * Local models sometimes wrap the JSON in a ```json fence or put a <think>…</think> block before
 * it, even under response_format; take the JSON out of such wrapping (nothing else is tolerated).
 */
function unwrapJson(content: string): string {
  const text = content.replace(/^\s*<think>[\s\S]*?<\/think>/, '').trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(text);
  return fenced ? fenced[1]! : text;
}

/** The base URL parsed; only http(s) URLs are endpoints. */
function endpointURL(baseURL: string): URL {
  const url = URL.canParse(baseURL) ? new URL(baseURL) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new Error(`createOpenAiProvider: baseURL is not an http(s) URL: ${baseURL}`);
  }
  return url;
}

/** Keywords OpenAI strict structured outputs accept (https://platform.openai.com/docs/guides/structured-outputs). */
const STRICT_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'definitions',
  'description',
  'title',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);
const STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
/** Strict mode allows at most this many levels of object nesting. */
const STRICT_MAX_OBJECT_DEPTH = 10;

/**
 * Whether OpenAI strict mode can take this schema as it is: a root object (not `anyOf`), every
 * object closed (`additionalProperties: false`) with every property required, only the
 * supported keywords and formats, at most 10 levels of objects. Conservative: anything unknown
 * means "no", and the schema is then sent with `strict: false`.
 */
export function fitsOpenAiStrictMode(schema: JsonSchemaObject): boolean {
  return schema['type'] === 'object' && !('anyOf' in schema) && strictNode(schema, 0);
}

function strictNode(node: unknown, depth: number): boolean {
  if (!isRecord(node)) return false;
  if (!Object.keys(node).every((key) => STRICT_KEYWORDS.has(key))) return false;
  if ('format' in node && !STRICT_FORMATS.has(node['format'] as string)) return false;
  const types = Array.isArray(node['type']) ? node['type'] : [node['type']];
  if (types.includes('object') || 'properties' in node) {
    if (depth >= STRICT_MAX_OBJECT_DEPTH || node['additionalProperties'] !== false) return false;
    const properties = node['properties'] ?? {};
    const required = node['required'] ?? [];
    if (!isRecord(properties) || !Array.isArray(required)) return false;
    if (!Object.keys(properties).every((key) => required.includes(key))) return false;
    if (!Object.values(properties).every((child) => strictNode(child, depth + 1))) return false;
  }
  if ('items' in node && !strictNode(node['items'], depth)) return false;
  if ('anyOf' in node && !(Array.isArray(node['anyOf']) && node['anyOf'].every((child) => strictNode(child, depth))))
    return false;
  for (const key of ['$defs', 'definitions']) {
    if (key in node && !(isRecord(node[key]) && Object.values(node[key]).every((child) => strictNode(child, depth))))
      return false;
  }
  return true;
}
