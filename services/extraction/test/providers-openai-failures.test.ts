import { describe, expect, it } from '@jest/globals';
import { createOpenAiProvider, fitsOpenAiStrictMode } from '../src/providers/openai.js';
import type { JsonSchemaObject } from '../src/types.js';
import {
  API_KEY,
  closedSchema,
  completion,
  http,
  openAiError,
  openSchema,
  PATH,
  provider,
  request,
  useOpenAiMock,
} from './providers-openai-fixtures.js';
import { failure } from './providers-http.js';

// The OpenAI-compatible provider's HTTP failures, retries and time budget, and which schemas fit
// OpenAI's strict mode.

useOpenAiMock();

describe('OpenAI provider: HTTP failures, retries and time budget', () => {
  const rateLimited = openAiError(
    'Rate limit reached for gpt-5.1 on tokens per min (TPM).',
    'tokens',
    'rate_limit_exceeded',
  );

  it('retries a 429 after the retry-after delay, then succeeds', async () => {
    http.reply(
      PATH,
      { status: 429, body: rateLimited, headers: { 'retry-after': '1' } },
      { status: 200, body: completion('{"title":"Moby-Dick","year":1851}') },
    );
    const started = Date.now();
    const answer = await provider().extract(request);
    const elapsed = Date.now() - started;
    expect(answer.data).toEqual({ title: 'Moby-Dick', year: 1851 });
    expect(http.requests).toHaveLength(2);
    expect(http.requests[1]!.headers['x-stainless-retry-count']).toBe('1');
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(3000);
    http.assertAllUsed();
  });

  it('a 429 that persists through all retries is PROVIDER_RATE_LIMITED', async () => {
    http.replyAlways(PATH, { status: 429, body: rateLimited, headers: { 'retry-after-ms': '20' } });
    const err = await failure(provider({ maxRetries: 2 }).extract(request));
    expect(err).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryable: true, status: 429 });
    expect(http.requests).toHaveLength(3);
  });

  it('a 503 that persists is PROVIDER_UNAVAILABLE', async () => {
    http.replyAlways(PATH, {
      status: 503,
      body: openAiError('The server is overloaded.', 'server_error', null),
      headers: { 'retry-after-ms': '20' },
    });
    const err = await failure(provider({ maxRetries: 1 }).extract(request));
    expect(err).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true, status: 503 });
    expect(http.requests).toHaveLength(2);
  });

  it('a 401 is PROVIDER_AUTH at once, and the key a server echoes is scrubbed', async () => {
    http.reply(PATH, {
      status: 401,
      body: openAiError(`Incorrect API key provided: ${API_KEY}.`, 'invalid_request_error', 'invalid_api_key'),
      headers: { 'x-request-id': 'req_8a1b2c3d' },
    });
    const err = await failure(provider().extract(request));
    expect(err).toMatchObject({ code: 'PROVIDER_AUTH', retryable: false, status: 401, requestId: 'req_8a1b2c3d' });
    expect(http.requests).toHaveLength(1);
    expect(err.message).toContain('Incorrect API key provided: [redacted]');
    expect(err.message).not.toContain(API_KEY);
    expect(err.cause).toBeUndefined();
  });

  it('a 404 (unknown model) is PROVIDER_BAD_REQUEST with what the server said', async () => {
    http.reply(PATH, {
      status: 404,
      body: openAiError('model "llama9" not found, try pulling it first', 'api_error', null),
    });
    const err = await failure(provider().extract(request));
    expect(err).toMatchObject({ code: 'PROVIDER_BAD_REQUEST', status: 404 });
    expect(err.message).toContain('model "llama9" not found');
  });

  it('a server slower than timeoutMs is PROVIDER_TIMEOUT within the budget', async () => {
    http.replyAlways(PATH, { status: 200, body: completion('{}'), delayMs: 5000 });
    const started = Date.now();
    const err = await failure(provider({ timeoutMs: 300 }).extract(request));
    const elapsed = Date.now() - started;
    expect(err).toMatchObject({ code: 'PROVIDER_TIMEOUT', retryable: true });
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1500);
  });

  it("the budget holds during a retry-after wait, though the OpenAI SDK's back-off sleep ignores the signal", async () => {
    http.replyAlways(PATH, { status: 429, body: rateLimited, headers: { 'retry-after': '2' } });
    const started = Date.now();
    const err = await failure(provider({ timeoutMs: 300 }).extract(request));
    expect(err.code).toBe('PROVIDER_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(1500);
    expect(http.requests).toHaveLength(1);
  });

  it("the caller's abort ends the call at once as PROVIDER_ABORTED", async () => {
    http.replyAlways(PATH, { status: 200, body: completion('{}'), delayMs: 5000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const err = await failure(provider().extract(request, { signal: controller.signal }));
    expect(err).toMatchObject({ code: 'PROVIDER_ABORTED', retryable: false });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('an unreachable endpoint is PROVIDER_UNAVAILABLE after the retries', async () => {
    // no interceptor: the MockAgent refuses the connection (net connect disabled)
    const err = await failure(provider({ maxRetries: 0 }).extract(request));
    expect(err).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });
    expect(err.message).toBe('The OpenAI API could not be reached (1 attempt).');
  });

  it('names a local endpoint by origin and path only, never with credentials in its URL', async () => {
    const p = createOpenAiProvider({
      baseURL: 'http://user:s3cret@localhost:11434/v1?key=abc123',
      model: 'm',
      maxRetries: 0,
      fetch: http.fetch,
    });
    const err = await failure(p.extract(request));
    expect(err.message).toBe(
      'The OpenAI-compatible endpoint at http://localhost:11434/v1 could not be reached (1 attempt).',
    );
  });
});

describe('fitsOpenAiStrictMode', () => {
  const closed = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}): JsonSchemaObject => ({
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
    ...extra,
  });

  it('accepts closed objects with every property required, nested, in arrays, in $defs and anyOf', () => {
    expect(fitsOpenAiStrictMode(closedSchema)).toBe(true);
    expect(
      fitsOpenAiStrictMode(
        closed(
          {
            authors: {
              type: 'array',
              items: closed({ name: { type: 'string', description: 'Full name' } }),
              minItems: 1,
            },
            published: { type: 'string', format: 'date' },
            price: { anyOf: [{ type: 'number', minimum: 0 }, { type: 'null' }] },
            kind: { enum: ['book', 'article'] },
            address: { $ref: '#/$defs/address' },
          },
          { $defs: { address: closed({ city: { type: 'string', pattern: '^[A-Z]' } }) } },
        ),
      ),
    ).toBe(true);
  });

  it('refuses what strict mode cannot take', () => {
    expect(fitsOpenAiStrictMode(openSchema)).toBe(false); // optional property, open object
    expect(fitsOpenAiStrictMode({ ...closedSchema, additionalProperties: true })).toBe(false);
    expect(fitsOpenAiStrictMode(closed({ a: { type: 'object', properties: { b: { type: 'string' } } } }))).toBe(false); // nested open object
    expect(fitsOpenAiStrictMode(closed({ a: { type: 'string', minLength: 1 } }))).toBe(false); // unsupported keyword
    expect(fitsOpenAiStrictMode(closed({ a: { type: 'string', format: 'uri' } }))).toBe(false); // unsupported format
    expect(fitsOpenAiStrictMode(closed({ a: { type: 'array', items: [{ type: 'string' }] } }))).toBe(false); // tuple items
    expect(fitsOpenAiStrictMode(closed({ a: { oneOf: [{ type: 'string' }] } }))).toBe(false);
    expect(fitsOpenAiStrictMode({ ...closedSchema, $schema: 'https://json-schema.org/draft/2020-12/schema' })).toBe(
      false,
    );
    expect(fitsOpenAiStrictMode({ anyOf: [closedSchema] })).toBe(false); // root must be an object
    let deep: JsonSchemaObject = closed({ leaf: { type: 'string' } });
    for (let i = 0; i < 10; i += 1) deep = closed({ child: deep });
    expect(fitsOpenAiStrictMode(deep)).toBe(false); // 11 levels of objects
  });
});
