import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createAnthropicProvider } from '../src/providers/anthropic.js';
import { ProviderError } from '../src/providers/errors.js';
import { createOpenAiProvider } from '../src/providers/openai.js';
import { ExtractionInvalidError, extractWithRepair, sumUsage, type ValidationResult } from '../src/repair.js';
import type { ExtractionProvider, ExtractionRequest, ProviderAnswer } from '../src/types.js';
import { mockHttp, type HttpMock } from './providers-http.js';

const schema = {
  type: 'object',
  properties: { title: { type: 'string' }, year: { type: 'integer' } },
  required: ['title'],
};
const request: ExtractionRequest = { schema, sourceText: 'Moby-Dick; or, The Whale. Published 1851.' };

/** A real ajv validator, its errors as "<path>: <message>" lines. */
const check = new Ajv2020({ allErrors: true }).compile(schema);
function validate(data: unknown): ValidationResult {
  if (check(data)) return { valid: true };
  return {
    valid: false,
    errors: (check.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`),
  };
}

function toolUse(input: unknown, usage = { input_tokens: 1000, output_tokens: 40 }) {
  return {
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-5-5-20261015',
    content: [{ type: 'tool_use', id: 'toolu_01', name: 'record_extraction', input, caller: { type: 'direct' } }],
    stop_reason: 'tool_use',
    stop_sequence: null,
    stop_details: null,
    usage,
  };
}

function chat(content: string, usage?: { prompt_tokens: number; completion_tokens: number }) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1763700000,
    model: 'gpt-5.1-2025-11-13',
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop' }],
    ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
  };
}

/** A provider that replays fixed answers and records the requests it got (the port, not an HTTP mock). */
function scripted(name: ExtractionProvider['name'], answers: ProviderAnswer[]) {
  const requests: ExtractionRequest[] = [];
  const provider: ExtractionProvider = {
    name,
    async extract(req) {
      requests.push(req);
      const next = answers.shift();
      if (!next) throw new Error('no more answers');
      return next;
    },
  };
  return { provider, requests };
}

describe('extractWithRepair through the Anthropic provider', () => {
  let http: HttpMock;
  beforeEach(() => {
    http = mockHttp('https://api.anthropic.com');
  });
  afterEach(async () => {
    await http.close();
  });

  it('an invalid first answer gets one repair round carrying the errors; the valid second answer wins', async () => {
    http.reply(
      '/v1/messages',
      { status: 200, body: toolUse({ title: 42, year: '1851' }, { input_tokens: 1000, output_tokens: 40 }) },
      { status: 200, body: toolUse({ title: 'Moby-Dick', year: 1851 }, { input_tokens: 1200, output_tokens: 45 }) },
    );
    const provider = createAnthropicProvider({ apiKey: 'sk-ant-test', fetch: http.fetch });
    const result = await extractWithRepair(provider, request, validate);

    expect(result).toEqual({
      answer: {
        data: { title: 'Moby-Dick', year: 1851 },
        model: 'claude-sonnet-5-5-20261015',
        usage: { inputTokens: 1200, outputTokens: 45 },
      },
      repaired: true,
      usage: { inputTokens: 2200, outputTokens: 85 },
    });
    expect(http.requests).toHaveLength(2);
    const [first, second] = http.requests.map(
      (r) => r.body as { messages: { role: string; content: string }[]; tool_choice: unknown },
    );
    expect(first!.messages).toHaveLength(1);
    expect(second!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(second!.messages[0]!.content).toContain('Moby-Dick; or, The Whale. Published 1851.');
    expect(second!.messages[1]!.content).toBe('{"title":42,"year":"1851"}');
    expect(second!.messages[2]!.content).toContain('- /title: must be string\n- /year: must be integer');
    expect(second!.tool_choice).toEqual({ type: 'tool', name: 'record_extraction' });
    http.assertAllUsed();
  });
});

describe('extractWithRepair through the OpenAI-compatible provider', () => {
  let http: HttpMock;
  beforeEach(() => {
    http = mockHttp('https://api.openai.com');
  });
  afterEach(async () => {
    await http.close();
  });

  it('invalid twice is ExtractionInvalidError after exactly two calls, with the tokens of both', async () => {
    http.reply(
      '/v1/chat/completions',
      { status: 200, body: chat('{"year":1851}', { prompt_tokens: 900, completion_tokens: 10 }) },
      { status: 200, body: chat('{"title":null,"year":1851}', { prompt_tokens: 950, completion_tokens: 12 }) },
    );
    const provider = createOpenAiProvider({ apiKey: 'sk-test', model: 'gpt-5.1', fetch: http.fetch });
    const err = await extractWithRepair(provider, request, validate).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ExtractionInvalidError);
    const invalid = err as ExtractionInvalidError;
    expect(invalid.errors).toEqual(['/title: must be string']);
    expect(invalid.attempts).toBe(2);
    expect(invalid.usage).toEqual({ inputTokens: 1850, outputTokens: 22 });
    expect(invalid.message).toBe(
      'The extracted data does not match the schema after one repair round: /title: must be string.',
    );
    expect(http.requests).toHaveLength(2);
    const second = http.requests[1]!.body as { messages: { role: string; content: string }[] };
    expect(second.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(second.messages[3]!.content).toContain("- /: must have required property 'title'");
  });
});

describe('extractWithRepair: the rules', () => {
  it('a valid first answer is returned as it is, with no second call', async () => {
    const { provider, requests } = scripted('openai', [
      { data: { title: 'Moby-Dick' }, model: 'm', usage: { inputTokens: 5, outputTokens: 2 } },
    ]);
    const result = await extractWithRepair(provider, request, validate);
    expect(result).toEqual({
      answer: { data: { title: 'Moby-Dick' }, model: 'm', usage: { inputTokens: 5, outputTokens: 2 } },
      repaired: false,
      usage: { inputTokens: 5, outputTokens: 2 },
    });
    expect(requests).toHaveLength(1);
    expect(requests[0]!.repair).toBeUndefined();
  });

  it('the heuristic provider gets no repair round', async () => {
    const { provider, requests } = scripted('heuristic', [{ data: { year: 1851 }, model: 'heuristic-v1' }]);
    const err = await extractWithRepair(provider, request, validate).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExtractionInvalidError);
    expect(err).toMatchObject({ attempts: 1, errors: ["/: must have required property 'title'"] });
    expect((err as Error).message).toContain('this provider gets no repair round');
    expect((err as ExtractionInvalidError).usage).toBeUndefined();
    expect(requests).toHaveLength(1);
  });

  it('the sampling provider is a model: it gets the repair round', async () => {
    const { provider, requests } = scripted('sampling', [
      { data: {}, model: 'client-model' },
      { data: { title: 'Moby-Dick' }, model: 'client-model' },
    ]);
    const result = await extractWithRepair(provider, request, validate);
    expect(result.repaired).toBe(true);
    expect(result.usage).toBeUndefined(); // no call reported usage
    expect(requests[1]!.repair).toEqual({ previous: {}, errors: ["/: must have required property 'title'"] });
    expect(requests[1]!.sourceText).toBe(request.sourceText);
  });

  it('a provider error in the repair round propagates', async () => {
    const failing: ExtractionProvider = {
      name: 'anthropic',
      extract: async (req) => {
        if (req.repair) throw new ProviderError('anthropic', 'PROVIDER_RATE_LIMITED', 'slow down');
        return { data: {}, model: 'm' };
      },
    };
    await expect(extractWithRepair(failing, request, validate)).rejects.toMatchObject({
      code: 'PROVIDER_RATE_LIMITED',
    });
  });

  it("passes the caller's signal to both calls", async () => {
    const signals: (AbortSignal | undefined)[] = [];
    const provider: ExtractionProvider = {
      name: 'openai',
      extract: async (req, options) => {
        signals.push(options?.signal);
        return { data: req.repair ? { title: 'x' } : {}, model: 'm' };
      },
    };
    const controller = new AbortController();
    await extractWithRepair(provider, request, validate, { signal: controller.signal });
    expect(signals).toEqual([controller.signal, controller.signal]);
  });

  it('the error message lists the first three errors and counts the rest', () => {
    const err = new ExtractionInvalidError(['a', 'b', 'c', 'd', 'e'], 2);
    expect(err.message).toBe(
      'The extracted data does not match the schema after one repair round: a; b; c (and 2 more).',
    );
    expect(err.errors).toHaveLength(5);
  });

  it('sumUsage adds what was reported and is undefined when nothing was', () => {
    expect(sumUsage(undefined, undefined)).toBeUndefined();
    expect(sumUsage({ inputTokens: 3, outputTokens: 1 }, undefined)).toEqual({ inputTokens: 3, outputTokens: 1 });
    expect(sumUsage({ inputTokens: 3, outputTokens: 1 }, { inputTokens: 4, outputTokens: 2 })).toEqual({
      inputTokens: 7,
      outputTokens: 3,
    });
  });
});
