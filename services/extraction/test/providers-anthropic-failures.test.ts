import { describe, expect, it } from '@jest/globals';
import { createAnthropicProvider } from '../src/providers/anthropic.js';
import {
  API_KEY,
  apiError,
  http,
  PATH,
  provider,
  request,
  toolUseMessage,
  useAnthropicMock,
} from './providers-anthropic-fixtures.js';
import { failure } from './providers-http.js';

// The Anthropic provider's HTTP failures, retries and time budget, and the options it refuses.

useAnthropicMock();

describe('Anthropic provider: HTTP failures, retries and time budget', () => {
  it('retries a 429 after the retry-after delay, then succeeds', async () => {
    http.reply(
      PATH,
      {
        status: 429,
        body: apiError('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'),
        headers: { 'retry-after': '1' },
      },
      { status: 200, body: toolUseMessage({ title: 'Moby-Dick' }) },
    );
    const started = Date.now();
    const answer = await provider().extract(request);
    const elapsed = Date.now() - started;
    expect(answer.data).toEqual({ title: 'Moby-Dick' });
    expect(http.requests).toHaveLength(2);
    expect(http.requests[1]!.headers['x-stainless-retry-count']).toBe('1');
    expect(elapsed).toBeGreaterThanOrEqual(950); // honoured "retry-after: 1"
    expect(elapsed).toBeLessThan(3000);
    http.assertAllUsed();
  });

  it('a 429 that persists through all retries is PROVIDER_RATE_LIMITED', async () => {
    http.replyAlways(PATH, {
      status: 429,
      body: apiError('rate_limit_error', 'slow down'),
      headers: { 'retry-after': '0.02' },
    });
    const err = await failure(provider({ maxRetries: 2 }).extract(request));
    expect(err).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryable: true, status: 429 });
    expect(http.requests).toHaveLength(3);
  });

  it('a 529 overloaded that persists is PROVIDER_UNAVAILABLE', async () => {
    http.replyAlways(PATH, {
      status: 529,
      body: apiError('overloaded_error', 'Overloaded'),
      headers: { 'retry-after': '0.02' },
    });
    const err = await failure(provider({ maxRetries: 1 }).extract(request));
    expect(err).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true, status: 529 });
    expect(http.requests).toHaveLength(2);
  });

  it('a 401 is PROVIDER_AUTH at once, and no message or field carries the key', async () => {
    http.reply(PATH, { status: 401, body: apiError('authentication_error', `invalid x-api-key ${API_KEY}`) });
    const err = await failure(provider().extract(request));
    expect(err).toMatchObject({ code: 'PROVIDER_AUTH', retryable: false, status: 401 });
    expect(http.requests).toHaveLength(1); // not retried
    expect(err.message).toContain('rejected the API key');
    expect(err.message).not.toContain(API_KEY);
    expect(JSON.stringify({ ...err, message: err.message })).not.toContain(API_KEY);
    expect(err.cause).toBeUndefined(); // the SDK error quotes the body: not kept
    expect(err.requestId).toBeUndefined();
  });

  it('keeps the request id of a failed response for support', async () => {
    http.reply(PATH, {
      status: 400,
      body: apiError('invalid_request_error', 'bad'),
      headers: { 'request-id': 'req_011CSHoEeqs5C35K2UUqR7Fy' },
    });
    const err = await failure(provider().extract(request));
    expect(err.requestId).toBe('req_011CSHoEeqs5C35K2UUqR7Fy');
  });

  it('a 400 is PROVIDER_BAD_REQUEST with what the API said', async () => {
    http.reply(PATH, {
      status: 400,
      body: apiError('invalid_request_error', 'tools.0.input_schema: JSON schema is invalid'),
    });
    const err = await failure(provider().extract(request));
    expect(err).toMatchObject({ code: 'PROVIDER_BAD_REQUEST', retryable: false, status: 400 });
    expect(err.message).toContain('tools.0.input_schema: JSON schema is invalid');
  });

  it('a server slower than timeoutMs is PROVIDER_TIMEOUT within the budget', async () => {
    http.replyAlways(PATH, { status: 200, body: toolUseMessage({ title: 'late' }), delayMs: 5000 });
    const started = Date.now();
    const err = await failure(provider({ timeoutMs: 300, maxRetries: 2 }).extract(request));
    const elapsed = Date.now() - started;
    expect(err).toMatchObject({ code: 'PROVIDER_TIMEOUT', retryable: true });
    expect(err.message).toContain('300 ms');
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1500);
  });

  it('the budget covers retry-after waits too', async () => {
    http.replyAlways(PATH, {
      status: 429,
      body: apiError('rate_limit_error', 'slow down'),
      headers: { 'retry-after': '30' },
    });
    const started = Date.now();
    const err = await failure(provider({ timeoutMs: 300 }).extract(request));
    expect(err.code).toBe('PROVIDER_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(1500);
    expect(http.requests).toHaveLength(1);
  });

  it("the caller's abort ends the call at once as PROVIDER_ABORTED", async () => {
    http.replyAlways(PATH, { status: 200, body: toolUseMessage({ title: 'late' }), delayMs: 5000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const err = await failure(provider().extract(request, { signal: controller.signal }));
    expect(err).toMatchObject({ code: 'PROVIDER_ABORTED', retryable: false });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('an already aborted signal sends nothing', async () => {
    const err = await failure(provider().extract(request, { signal: AbortSignal.abort() }));
    expect(err.code).toBe('PROVIDER_ABORTED');
    expect(http.requests).toHaveLength(0);
  });

  it.each([
    [402, 'billing_error', 'PROVIDER_AUTH'],
    [403, 'permission_error', 'PROVIDER_AUTH'],
    [404, 'not_found_error', 'PROVIDER_BAD_REQUEST'],
    [408, 'timeout_error', 'PROVIDER_TIMEOUT'],
    [409, 'conflict_error', 'PROVIDER_UNAVAILABLE'],
    [413, 'request_too_large', 'PROVIDER_BAD_REQUEST'],
    [500, 'api_error', 'PROVIDER_UNAVAILABLE'],
  ])('HTTP %i (%s) is %s', async (status, type, code) => {
    http.reply(PATH, { status, body: apiError(type, 'something went wrong') });
    const err = await failure(provider({ maxRetries: 0 }).extract(request));
    expect(err).toMatchObject({ code, status });
  });

  it('requires an API key and sane limits', () => {
    expect(() => createAnthropicProvider({ apiKey: '' })).toThrow(/apiKey is required/);
    expect(() => createAnthropicProvider({ apiKey: API_KEY, timeoutMs: 0 })).toThrow(
      /timeoutMs must be an integer >= 1, got 0/,
    );
    expect(() => createAnthropicProvider({ apiKey: API_KEY, maxRetries: -1 })).toThrow(
      /maxRetries must be an integer >= 0/,
    );
    expect(() => createAnthropicProvider({ apiKey: API_KEY, maxTokens: 1.5 })).toThrow(
      /maxTokens must be an integer >= 1/,
    );
  });
});
