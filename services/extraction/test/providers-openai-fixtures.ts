import { afterEach, beforeEach } from '@jest/globals';
import { createOpenAiProvider, type OpenAiProviderOptions } from '../src/providers/openai.js';
import type { ExtractionRequest } from '../src/types.js';
import { mockHttp, type HttpMock } from './providers-http.js';

// Shared by the OpenAI provider's test files (providers-openai*.test.ts): schemas, the answers
// OpenAI and Ollama return, and the provider over an HTTP mock at the transport.

const OPENAI = 'https://api.openai.com';
export const OLLAMA = 'http://localhost:11434';
export const PATH = '/v1/chat/completions';
export const API_KEY = 'sk-proj-test-key-abcdefghijklmnop';

/** A closed schema: fits OpenAI strict mode. */
export const closedSchema = {
  type: 'object',
  properties: { title: { type: 'string' }, year: { type: ['integer', 'null'] } },
  required: ['title', 'year'],
  additionalProperties: false,
};
/** An open schema (optional `year`, no additionalProperties): strict mode cannot take it. */
export const openSchema = {
  type: 'object',
  properties: { title: { type: 'string' }, year: { type: 'integer' } },
  required: ['title'],
};
export const SOURCE = 'Moby-Dick; or, The Whale. Published 1851.';
export const request: ExtractionRequest = { schema: closedSchema, sourceText: SOURCE };

/** A chat.completion as OpenAI returns it for a structured-output request. */
export function completion(
  content: string | null,
  overrides: { message?: Record<string, unknown>; finish_reason?: string } = {},
) {
  return {
    id: 'chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG',
    object: 'chat.completion',
    created: 1741570283,
    model: 'gpt-5.1-2025-11-13',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null, annotations: [], ...overrides.message },
        logprobs: null,
        finish_reason: overrides.finish_reason ?? 'stop',
      },
    ],
    usage: {
      prompt_tokens: 1117,
      completion_tokens: 46,
      total_tokens: 1163,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
    service_tier: 'default',
  };
}

/** What Ollama's OpenAI-compatible endpoint returns: no usage, no refusal field. */
export function ollamaCompletion(content: string) {
  return {
    id: 'chatcmpl-392',
    object: 'chat.completion',
    created: 1763700000,
    model: 'qwen3:8b',
    system_fingerprint: 'fp_ollama',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  };
}

export function openAiError(message: string, type: string, code: string | null) {
  return { error: { message, type, param: null, code } };
}

export let http: HttpMock;
/** A fresh HTTP mock of the OpenAI API for every test of the file (`http`, a live binding). */
export function useOpenAiMock(): void {
  beforeEach(() => {
    http = mockHttp(OPENAI);
  });
  afterEach(async () => {
    await http.close();
  });
}

export function provider(options: Partial<OpenAiProviderOptions> = {}) {
  return createOpenAiProvider({ apiKey: API_KEY, model: 'gpt-5.1', fetch: http.fetch, ...options });
}
