import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { extractionV1, mcpV1 } from '@quarry/contracts';
import { status } from '@quarry/grpc';
import {
  createAnthropicProvider,
  createHeuristicProvider,
  createOpenAiProvider,
  sourceHash,
  type SamplingContinuation,
} from '../src/index.js';
import { mockHttp, type HttpMock } from './providers-http.js';
import { as, failure, startTestSystem, storesNothing, type ExtractionClient, type TestSystem } from './support.js';

// extract_data with the model providers, over gRPC against the real artifact store on real
// PostgreSQL: Anthropic and an OpenAI-compatible endpoint behind an HTTP mock at the transport
// (undici MockAgent), and the client's own model through the sampling exchange the gateway
// drives. Every failure stores nothing; tokens spent before it are reported in modelUsage.

const ANTHROPIC = 'https://api.anthropic.com';
const OPENAI = 'https://api.openai.com';
const SOURCE = 'Moby-Dick; or, The Whale, by Herman Melville. Published 1851 by Harper & Brothers.';
const SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' }, author: { type: 'string' }, year: { type: 'integer' } },
  required: ['title', 'year'],
};
const VALID = { title: 'Moby-Dick', author: 'Herman Melville', year: 1851 };

let system: TestSystem;
let anthropicHttp: HttpMock;
let openAiHttp: HttpMock;
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
const org = randomUUID();

/** auto with Anthropic configured (and sampling offered to clients that can sample). */
let auto: ExtractionClient;
/** auto with Anthropic, a 300 ms model timeout. */
let impatient: ExtractionClient;
/** EXTRACTION_PROVIDER=openai. */
let openai: ExtractionClient;

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

const request = (over: Partial<extractionV1.ExtractDataRequest> = {}): extractionV1.ExtractDataRequest => ({
  source: { $case: 'sourceText', sourceText: SOURCE },
  extractionSchema: SCHEMA,
  ...over,
});

function toolUse(input: unknown, usage: { input_tokens: number; output_tokens: number }) {
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

function chat(content: string, usage: { prompt_tokens: number; completion_tokens: number }) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_760_000_000,
    model: 'gpt-test-2026-01-01',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content, refusal: null } }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

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

describe("sampling: the client's own model, through the gateway's round trips", () => {
  const offered = (answer?: mcpV1.SampledMessage, continuation: Buffer = Buffer.alloc(0)): mcpV1.ClientSampling => ({
    available: true,
    continuation,
    ...(answer ? { answer } : {}),
  });
  const answer = (text: string): mcpV1.SampledMessage => ({
    text,
    model: 'claude-client-model',
    stopReason: 'endTurn',
  });
  const continuationOf = (res: extractionV1.ExtractDataResponse) =>
    JSON.parse(res.samplingRequest!.continuation.toString('utf8')) as SamplingContinuation;

  it('round 1 asks the client model and stores nothing; round 2 with a valid answer stores it', async () => {
    let round1!: extractionV1.ExtractDataResponse;
    await storesNothing(system, async () => {
      round1 = await auto.call('extractData', request({ clientSampling: offered() }), as(org));
    });
    expect(anthropicHttp.requests).toHaveLength(0); // sampling first: no server-side model call
    expect(round1).toMatchObject({
      extractionId: '',
      provider: 'sampling',
      model: '',
      fields: [],
      fieldConfidences: {},
      status: extractionV1.ExtractionStatus.EXTRACTION_STATUS_UNSPECIFIED,
    });
    expect(round1.modelUsage).toBeUndefined();
    const asked = round1.samplingRequest!;
    expect(asked).toMatchObject({ maxTokens: 4096, temperature: 0 });
    expect(asked.messages).toHaveLength(1);
    expect(asked.messages[0]!.role).toBe(mcpV1.SamplingRole.SAMPLING_ROLE_USER);
    expect(asked.messages[0]!.text).toContain(JSON.stringify(SCHEMA));
    expect(asked.messages[0]!.text).toContain(SOURCE);
    expect(continuationOf(round1)).toMatchObject({ v: 1, attempt: 1, sourceHash: sourceHash(SOURCE) });

    const done = await auto.call(
      'extractData',
      request({ clientSampling: offered(answer(`\`\`\`json\n${JSON.stringify(VALID)}\n\`\`\``), asked.continuation) }),
      as(org),
    );
    expect(done).toMatchObject({
      data: VALID,
      provider: 'sampling',
      model: 'claude-client-model',
      status: extractionV1.ExtractionStatus.EXTRACTION_STATUS_COMPLETED,
      modelUsage: { provider: 'sampling', model: 'claude-client-model', inputTokens: 0, outputTokens: 0 },
    });
    expect(done.samplingRequest).toBeUndefined();
    expect(await system.row(done.extractionId)).toMatchObject({
      provider: 'sampling',
      model: 'claude-client-model',
      input_tokens: null,
      output_tokens: null,
      source_text: SOURCE,
    });
    expect(await system.events(done.extractionId)).toHaveLength(1);
  });

  it('an invalid answer gets a repair request; invalid again is EXTRACTION_INVALID; nothing is stored on the way', async () => {
    await storesNothing(system, async () => {
      const round1 = await auto.call('extractData', request({ clientSampling: offered() }), as(org));
      const round2 = await auto.call(
        'extractData',
        request({ clientSampling: offered(answer('{"title": "Moby-Dick"}'), round1.samplingRequest!.continuation) }),
        as(org),
      );
      const repair = round2.samplingRequest!;
      expect(round2.extractionId).toBe('');
      expect(continuationOf(round2)).toEqual({ ...continuationOf(round1), attempt: 2 });
      expect(repair.messages.map((m) => m.role)).toEqual([
        mcpV1.SamplingRole.SAMPLING_ROLE_USER,
        mcpV1.SamplingRole.SAMPLING_ROLE_ASSISTANT,
        mcpV1.SamplingRole.SAMPLING_ROLE_USER,
      ]);
      expect(repair.messages[2]!.text).toContain("- (root) must have required property 'year'");

      const error = await failure(
        auto.call(
          'extractData',
          request({ clientSampling: offered(answer('{"title": "Moby-Dick", "year": "1851"}'), repair.continuation) }),
          as(org),
        ),
      );
      expect([error.code, error.status]).toEqual(['EXTRACTION_INVALID', status.FAILED_PRECONDITION]);
      expect(error.message).toBe(
        'The extracted data does not match the schema after one repair round: /year must be integer.',
      );
      expect(error.details).toMatchObject({
        modelUsage: { provider: 'sampling', model: 'claude-client-model', inputTokens: 0, outputTokens: 0 },
      });
    });
  });

  it('an answer without JSON after the repair request is SAMPLING_FAILED', async () => {
    await storesNothing(system, async () => {
      const round1 = await auto.call('extractData', request({ clientSampling: offered() }), as(org));
      const round2 = await auto.call(
        'extractData',
        request({
          clientSampling: offered(answer('Sorry, I cannot help with that.'), round1.samplingRequest!.continuation),
        }),
        as(org),
      );
      const error = await failure(
        auto.call(
          'extractData',
          request({ clientSampling: offered(answer(''), round2.samplingRequest!.continuation) }),
          as(org),
        ),
      );
      expect([error.code, error.status, error.message]).toEqual([
        'SAMPLING_FAILED',
        status.FAILED_PRECONDITION,
        "The client's model gave no usable answer, also after a repair request: the answer is empty.",
      ]);
    });
  });

  it('an answer for another source text is refused', async () => {
    await storesNothing(system, async () => {
      const round1 = await auto.call('extractData', request({ clientSampling: offered() }), as(org));
      const other = request({
        source: { $case: 'sourceText', sourceText: 'Another book, 1900.' },
        clientSampling: offered(answer(JSON.stringify(VALID)), round1.samplingRequest!.continuation),
      });
      const error = await failure(auto.call('extractData', other, as(org)));
      expect([error.code, error.message]).toEqual([
        'INVALID_ARGUMENT',
        '`clientSampling.continuation` is not valid: the sampling continuation does not belong to this call.',
      ]);
    });
  });

  it('works from a stored artifact too, storing the artifact as the source', async () => {
    const artifactId = await system.storeArtifact(org, SOURCE);
    const source = { $case: 'sourceArtifactId' as const, sourceArtifactId: artifactId };
    const round1 = await auto.call('extractData', request({ source, clientSampling: offered() }), as(org));
    const done = await auto.call(
      'extractData',
      request({ source, clientSampling: offered(answer(JSON.stringify(VALID)), round1.samplingRequest!.continuation) }),
      as(org),
    );
    expect(await system.row(done.extractionId)).toMatchObject({
      provider: 'sampling',
      source_artifact_id: artifactId,
      source_text: null,
    });
  });

  it('an unknown plan or step is refused before the client is asked to sample', async () => {
    const mine = await system.createPlan(org);
    const theirs = await system.createPlan(randomUUID());
    for (const [target, code] of [
      [{ planId: randomUUID() }, 'PLAN_NOT_FOUND'],
      [{ planId: theirs.planId, stepId: theirs.stepId }, 'PLAN_NOT_FOUND'],
      [{ planId: mine.planId, stepId: randomUUID() }, 'STEP_NOT_FOUND'],
    ] as const) {
      await storesNothing(system, async () => {
        expect(
          (await failure(auto.call('extractData', request({ clientSampling: offered(), ...target }), as(org)))).code,
        ).toBe(code);
      });
    }
    const asked = await auto.call(
      'extractData',
      request({ clientSampling: offered(), planId: mine.planId, stepId: mine.stepId }),
      as(org),
    );
    expect(asked.samplingRequest).toBeDefined();
  });

  it('a client that cannot sample gets the configured API provider instead', async () => {
    anthropicHttp.reply('/v1/messages', { status: 200, body: toolUse(VALID, { input_tokens: 10, output_tokens: 5 }) });
    const res = await auto.call(
      'extractData',
      request({ clientSampling: { available: false, continuation: Buffer.alloc(0) } }),
      as(org),
    );
    expect(res.provider).toBe('anthropic');
  });
});
