import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { extractionV1 } from '@quarry/contracts';
import { status } from '@quarry/grpc';
import { as, failure, storesNothing } from './support.js';
import {
  anthropicHttp,
  auto,
  chat,
  impatient,
  openai,
  openAiHttp,
  org,
  request,
  SCHEMA,
  system,
  toolUse,
  useProviderSystem,
  VALID,
} from './service-providers-fixture.js';

// extract_data with Anthropic and an OpenAI-compatible endpoint (HTTP mocks at the transport),
// over gRPC against the real artifact store on real PostgreSQL. Every failure stores nothing;
// tokens spent before it are reported in modelUsage.

useProviderSystem();

describe('Anthropic', () => {
  it('stores the repaired answer when the first fails validation, with the usage of both calls', async () => {
    anthropicHttp.reply(
      '/v1/messages',
      { status: 200, body: toolUse({ title: 'Moby-Dick', year: '1851' }, { input_tokens: 1000, output_tokens: 40 }) },
      { status: 200, body: toolUse(VALID, { input_tokens: 1100, output_tokens: 45 }) },
    );
    const res = await auto.call('extractData', request(), as(org));
    anthropicHttp.assertAllUsed();

    expect(res).toMatchObject({
      data: VALID,
      provider: 'anthropic',
      model: 'claude-test-20261015',
      status: extractionV1.ExtractionStatus.EXTRACTION_STATUS_COMPLETED,
      modelUsage: { provider: 'anthropic', model: 'claude-test-20261015', inputTokens: 2100, outputTokens: 85 },
    });
    expect(res.fieldConfidences['/title']).toBe(1);
    const [first, repair] = anthropicHttp.requests.map(
      (r) => r.body as { messages: { role: string; content: string }[] },
    );
    expect(first!.messages).toHaveLength(1);
    expect(repair!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(repair!.messages[2]!.content).toContain('- /year must be integer');
    expect(await system.row(res.extractionId)).toMatchObject({
      data: VALID,
      provider: 'anthropic',
      model: 'claude-test-20261015',
      input_tokens: '2100',
      output_tokens: '85',
    });
    expect(await system.events(res.extractionId)).toHaveLength(1);
  });

  it('still invalid after the repair round: EXTRACTION_INVALID with the tokens spent, nothing stored', async () => {
    anthropicHttp.reply(
      '/v1/messages',
      { status: 200, body: toolUse({ title: 'Moby-Dick' }, { input_tokens: 1000, output_tokens: 20 }) },
      {
        status: 200,
        body: toolUse({ title: 'Moby-Dick', year: 'eighteen fifty-one' }, { input_tokens: 1100, output_tokens: 30 }),
      },
    );
    await storesNothing(system, async () => {
      const error = await failure(auto.call('extractData', request(), as(org)));
      expect([error.code, error.status]).toEqual(['EXTRACTION_INVALID', status.FAILED_PRECONDITION]);
      expect(error.message).toBe(
        'The extracted data does not match the schema after one repair round: /year must be integer.',
      );
      expect(error.details).toEqual({
        errors: ['/year must be integer'],
        attempts: 2,
        modelUsage: { provider: 'anthropic', model: 'claude-test-20261015', inputTokens: 2100, outputTokens: 50 },
      });
    });
  });

  it('rate-limited through the retries: PROVIDER_RATE_LIMITED, nothing stored', async () => {
    anthropicHttp.replyAlways('/v1/messages', {
      status: 429,
      body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
      headers: { 'retry-after': '0.02' },
    });
    await storesNothing(system, async () => {
      const error = await failure(auto.call('extractData', request(), as(org)));
      expect([error.code, error.status]).toEqual(['PROVIDER_RATE_LIMITED', status.RESOURCE_EXHAUSTED]);
      expect(error.details).toEqual({ provider: 'anthropic', providerCode: 'PROVIDER_RATE_LIMITED', httpStatus: 429 });
    });
    expect(anthropicHttp.requests).toHaveLength(2); // maxRetries: 1
  });

  it('a failure in the repair round still reports the tokens of the first call', async () => {
    anthropicHttp.reply('/v1/messages', {
      status: 200,
      body: toolUse({ title: 'Moby-Dick' }, { input_tokens: 1000, output_tokens: 20 }),
    });
    anthropicHttp.replyAlways('/v1/messages', {
      status: 503,
      body: { type: 'error', error: { type: 'api_error', message: 'down' } },
      headers: { 'retry-after': '0.02' },
    });
    await storesNothing(system, async () => {
      const error = await failure(auto.call('extractData', request(), as(org)));
      expect([error.code, error.status]).toEqual(['PROVIDER_UNAVAILABLE', status.UNAVAILABLE]);
      expect(error.details).toEqual({
        provider: 'anthropic',
        providerCode: 'PROVIDER_UNAVAILABLE',
        httpStatus: 503,
        modelUsage: { provider: 'anthropic', model: 'claude-test-20261015', inputTokens: 1000, outputTokens: 20 },
      });
    });
  });

  it('no answer within EXTRACTION_TIMEOUT: PROVIDER_TIMEOUT, nothing stored', async () => {
    anthropicHttp.reply('/v1/messages', {
      status: 200,
      body: toolUse(VALID, { input_tokens: 1, output_tokens: 1 }),
      delayMs: 5000,
    });
    await storesNothing(system, async () => {
      const started = Date.now();
      const error = await failure(impatient.call('extractData', request(), as(org)));
      expect([error.code, error.status]).toEqual(['PROVIDER_TIMEOUT', status.DEADLINE_EXCEEDED]);
      expect(error.message).toBe(
        'The extraction model (anthropic) gave no answer within 0.3 s. Try again later, or with a shorter source text or a smaller schema.',
      );
      expect(Date.now() - started).toBeLessThan(3000);
    });
  });

  it('a rejected API key is PROVIDER_FAILED without the provider’s text', async () => {
    anthropicHttp.reply('/v1/messages', {
      status: 401,
      body: {
        type: 'error',
        error: { type: 'authentication_error', message: 'invalid x-api-key sk-ant-test-0123456789' },
      },
    });
    await storesNothing(system, async () => {
      const error = await failure(auto.call('extractData', request(), as(org)));
      expect([error.code, error.status, error.message]).toEqual([
        'PROVIDER_FAILED',
        status.FAILED_PRECONDITION,
        "The extraction model provider refused the request (PROVIDER_AUTH); the server's provider configuration needs attention.",
      ]);
      expect(JSON.stringify(error.details)).not.toContain('sk-ant');
    });
  });
});

describe('a plan or step that storing would refuse', () => {
  it('is PLAN_NOT_FOUND / STEP_NOT_FOUND before any model call: no tokens are spent on a result that cannot be stored', async () => {
    const mine = await system.createPlan(org);
    for (const [client, target, code] of [
      [auto, { planId: randomUUID() }, 'PLAN_NOT_FOUND'],
      [openai, { planId: mine.planId, stepId: randomUUID() }, 'STEP_NOT_FOUND'],
    ] as const) {
      await storesNothing(system, async () => {
        const error = await failure(client.call('extractData', request(target), as(org)));
        expect([error.code, error.status]).toEqual([code, status.NOT_FOUND]);
        expect(error.details?.modelUsage).toBeUndefined(); // no tokens spent
      });
    }
    expect(anthropicHttp.requests).toHaveLength(0);
    expect(openAiHttp.requests).toHaveLength(0);
    // The plan and step of the caller's org pass the check and the model is asked as usual.
    anthropicHttp.reply('/v1/messages', { status: 200, body: toolUse(VALID, { input_tokens: 10, output_tokens: 5 }) });
    const res = await auto.call('extractData', request(mine), as(org));
    expect(await system.row(res.extractionId)).toMatchObject({
      plan_id: mine.planId,
      step_id: mine.stepId,
      provider: 'anthropic',
    });
  });
});

describe('OpenAI-compatible', () => {
  it('extracts with the configured endpoint even when the client could sample, and stores the tokens', async () => {
    openAiHttp.reply('/v1/chat/completions', {
      status: 200,
      body: chat(JSON.stringify(VALID), { prompt_tokens: 900, completion_tokens: 30 }),
    });
    const res = await openai.call(
      'extractData',
      request({ clientSampling: { available: true, continuation: Buffer.alloc(0) } }),
      as(org),
    );
    expect(res).toMatchObject({
      data: VALID,
      provider: 'openai',
      model: 'gpt-test-2026-01-01',
      modelUsage: { provider: 'openai', inputTokens: 900, outputTokens: 30 },
    });
    expect(res.samplingRequest).toBeUndefined();
    expect(openAiHttp.requests[0]!.body).toMatchObject({
      model: 'gpt-test',
      response_format: { type: 'json_schema', json_schema: { schema: SCHEMA } },
    });
    expect(await system.row(res.extractionId)).toMatchObject({
      provider: 'openai',
      input_tokens: '900',
      output_tokens: '30',
    });
  });
});
