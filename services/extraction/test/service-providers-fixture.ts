import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach } from '@jest/globals';
import type { extractionV1 } from '@quarry/contracts';
import { createAnthropicProvider, createHeuristicProvider, createOpenAiProvider } from '../src/index.js';
import { mockHttp, type HttpMock } from './providers-http.js';
import { startTestSystem, type ExtractionClient, type TestSystem } from './support.js';

// extract_data with the model providers, over gRPC against the real artifact store on real
// PostgreSQL, for service-providers.test.ts and service-sampling.test.ts: Anthropic and an
// OpenAI-compatible endpoint behind an HTTP mock at the transport (undici MockAgent), and the
// client's own model through the sampling exchange the gateway drives.

const ANTHROPIC = 'https://api.anthropic.com';
const OPENAI = 'https://api.openai.com';
export const SOURCE = 'Moby-Dick; or, The Whale, by Herman Melville. Published 1851 by Harper & Brothers.';
export const SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' }, author: { type: 'string' }, year: { type: 'integer' } },
  required: ['title', 'year'],
};
export const VALID = { title: 'Moby-Dick', author: 'Herman Melville', year: 1851 };

export let system: TestSystem;
export let anthropicHttp: HttpMock;
export let openAiHttp: HttpMock;
/** The providers' transport: whichever mock the current test set up. */
const viaAnthropicMock = ((...args: Parameters<typeof fetch>) => anthropicHttp.fetch(...args)) as typeof fetch;
const viaOpenAiMock = ((...args: Parameters<typeof fetch>) => openAiHttp.fetch(...args)) as typeof fetch;
const anthropic = () =>
  createAnthropicProvider({
    apiKey: 'sk-ant-test-0123456789',
    model: 'claude-test',
    maxRetries: 1,
    fetch: viaAnthropicMock,
  });
export const org = randomUUID();

/** auto with Anthropic configured (and sampling offered to clients that can sample). */
export let auto: ExtractionClient;
/** auto with Anthropic, a 300 ms model timeout. */
export let impatient: ExtractionClient;
/** EXTRACTION_PROVIDER=openai. */
export let openai: ExtractionClient;

/** Registers the hooks: one test system for the file, fresh HTTP mocks for every test (the `let` exports are live bindings). */
export function useProviderSystem(): void {
  beforeAll(async () => {
    system = await startTestSystem();
    const heuristic = createHeuristicProvider();
    auto = await system.extraction({ providers: { heuristic, anthropic: anthropic() } });
    impatient = await system.extraction({ providers: { heuristic, anthropic: anthropic() }, timeoutMs: 300 });
    openai = await system.extraction({
      provider: 'openai',
      providers: {
        heuristic,
        openai: createOpenAiProvider({
          apiKey: 'sk-openai-test-0123',
          model: 'gpt-test',
          maxRetries: 1,
          fetch: viaOpenAiMock,
        }),
      },
    });
  });
  afterAll(async () => {
    await system?.close();
  });
  beforeEach(() => {
    anthropicHttp = mockHttp(ANTHROPIC);
    openAiHttp = mockHttp(OPENAI);
  });
  afterEach(async () => {
    await anthropicHttp.close();
    await openAiHttp.close();
  });
}

export const request = (over: Partial<extractionV1.ExtractDataRequest> = {}): extractionV1.ExtractDataRequest => ({
  source: { $case: 'sourceText', sourceText: SOURCE },
  extractionSchema: SCHEMA,
  ...over,
});

export function toolUse(input: unknown, usage: { input_tokens: number; output_tokens: number }) {
  return {
    id: `msg_${randomUUID()}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-test-20261015',
    content: [{ type: 'tool_use', id: 'toolu_01', name: 'record_extraction', input }],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage,
  };
}

export function chat(content: string, usage: { prompt_tokens: number; completion_tokens: number }) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_760_000_000,
    model: 'gpt-test-2026-01-01',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content, refusal: null } }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}
