import { afterEach, beforeEach } from '@jest/globals';
import { createAnthropicProvider, type AnthropicProviderOptions } from '../src/providers/anthropic.js';
import type { ExtractionRequest } from '../src/types.js';
import { mockHttp, type HttpMock } from './providers-http.js';

// Shared by the Anthropic provider's test files (providers-anthropic*.test.ts): the schema, the
// answers the Messages API returns, and the provider over an HTTP mock at the transport.

const ORIGIN = 'https://api.anthropic.com';
export const PATH = '/v1/messages';
export const API_KEY = 'sk-ant-api03-test-key-0123456789';

export const schema = {
  type: 'object',
  properties: { title: { type: 'string' }, year: { type: 'integer' } },
  required: ['title'],
};
export const request: ExtractionRequest = { schema, sourceText: 'Moby-Dick; or, The Whale. Published 1851.' };

/** A Messages API response as the API returns it for a forced tool call (API version 2026-10-21). */
export function toolUseMessage(input: unknown, overrides: Record<string, unknown> = {}) {
  return {
    id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-5-5-20261015',
    content: [
      {
        type: 'tool_use',
        id: 'toolu_01A09q90qw90lq917835lq9',
        name: 'record_extraction',
        input,
        caller: { type: 'direct' },
      },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: {
      input_tokens: 1270,
      output_tokens: 41,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      inference_geo: 'global',
      output_tokens_details: null,
      server_tool_use: null,
      service_tier: 'standard',
      speed: 'standard',
    },
    ...overrides,
  };
}

export function apiError(type: string, message: string) {
  return { type: 'error', error: { type, message }, request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy' };
}

export let http: HttpMock;
/** A fresh HTTP mock of the Anthropic API for every test of the file (`http`, a live binding). */
export function useAnthropicMock(): void {
  beforeEach(() => {
    http = mockHttp(ORIGIN);
  });
  afterEach(async () => {
    await http.close();
  });
}

export function provider(options: Partial<AnthropicProviderOptions> = {}) {
  return createAnthropicProvider({ apiKey: API_KEY, fetch: http.fetch, ...options });
}
