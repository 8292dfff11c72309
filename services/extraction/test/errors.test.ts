import { describe, expect, it } from '@jest/globals';
import { grpcErrors, QuarryError, status } from '@quarry/grpc';
import {
  ExtractionInvalidError,
  extractionErrors,
  ProviderError,
  SchemaRejectedError,
  SourceTextRejectedError,
  toExtractionError,
  type ModelUsage,
  type ProviderErrorCode,
} from '../src/index.js';

// How every failure reaches the caller: a stable code, the gRPC status the gateway maps, a
// message for the model that never leaks the provider's text where it may hold secrets or
// internal host names, and the model usage of the calls made before the failure.

const usage: ModelUsage = { provider: 'anthropic', model: 'claude-test', inputTokens: 1200, outputTokens: 80 };
const map = (error: unknown, options: { usage?: ModelUsage; callerSignal?: AbortSignal } = {}) =>
  toExtractionError(error, { timeoutMs: 60_000, ...options }) as QuarryError;

describe('provider errors', () => {
  const cases: [ProviderErrorCode, string, status][] = [
    ['PROVIDER_TIMEOUT', 'PROVIDER_TIMEOUT', status.DEADLINE_EXCEEDED],
    ['PROVIDER_RATE_LIMITED', 'PROVIDER_RATE_LIMITED', status.RESOURCE_EXHAUSTED],
    ['PROVIDER_UNAVAILABLE', 'PROVIDER_UNAVAILABLE', status.UNAVAILABLE],
    ['PROVIDER_AUTH', 'PROVIDER_FAILED', status.FAILED_PRECONDITION],
    ['PROVIDER_BAD_REQUEST', 'PROVIDER_FAILED', status.FAILED_PRECONDITION],
    ['PROVIDER_REFUSED', 'PROVIDER_REFUSED', status.FAILED_PRECONDITION],
    ['PROVIDER_BAD_OUTPUT', 'PROVIDER_BAD_OUTPUT', status.FAILED_PRECONDITION],
    ['PROVIDER_ABORTED', 'PROVIDER_TIMEOUT', status.DEADLINE_EXCEEDED],
  ];

  it.each(cases)('%s → %s', (providerCode, code, grpcStatus) => {
    const error = map(
      new ProviderError(
        'openai',
        providerCode,
        'The OpenAI-compatible endpoint at http://10.0.0.7:8000/v1 said sk-secret-123',
        { status: 400 },
      ),
      { usage },
    );
    expect(error).toBeInstanceOf(QuarryError);
    expect([error.code, error.status]).toEqual([code, grpcStatus]);
    expect(error.details).toMatchObject({ provider: 'openai', providerCode, httpStatus: 400, modelUsage: usage });
    if (providerCode !== 'PROVIDER_REFUSED' && providerCode !== 'PROVIDER_BAD_OUTPUT') {
      expect(error.message).not.toMatch(/10\.0\.0\.7|sk-secret/);
    }
  });

  it("says what to do, and passes on only the model's own explanation", () => {
    expect(
      map(
        new ProviderError(
          'anthropic',
          'PROVIDER_AUTH',
          'The Anthropic API rejected the API key (HTTP 401). Provider says: invalid x-api-key sk-ant-123',
        ),
      ).message,
    ).toBe(
      "The extraction model provider refused the request (PROVIDER_AUTH); the server's provider configuration needs attention.",
    );
    expect(map(new ProviderError('anthropic', 'PROVIDER_TIMEOUT', 'x')).message).toBe(
      'The extraction model (anthropic) gave no answer within 60 s. Try again later, or with a shorter source text or a smaller schema.',
    );
    expect(map(new ProviderError('openai', 'PROVIDER_RATE_LIMITED', 'x')).message).toMatch(
      /rate-limiting.*Try again later/,
    );
    expect(
      map(new ProviderError('anthropic', 'PROVIDER_REFUSED', 'The model refused to extract from this source (cyber).'))
        .message,
    ).toBe('The model refused to extract from this source (cyber).');
    expect(
      map(new ProviderError('openai', 'PROVIDER_BAD_OUTPUT', 'The answer was cut off at the output token limit.'))
        .message,
    ).toBe('The answer was cut off at the output token limit.');
  });

  it("reports an abort by the caller as the caller's cancellation, not as a provider failure", () => {
    const controller = new AbortController();
    controller.abort(grpcErrors.DEADLINE_EXCEEDED());
    expect(map(new ProviderError('anthropic', 'PROVIDER_ABORTED', 'x'), { callerSignal: controller.signal }).code).toBe(
      'DEADLINE_EXCEEDED',
    );
    const cancelled = new AbortController();
    cancelled.abort();
    expect(map(new ProviderError('anthropic', 'PROVIDER_ABORTED', 'x'), { callerSignal: cancelled.signal }).code).toBe(
      'CANCELLED',
    );
    expect(
      map(new ProviderError('anthropic', 'PROVIDER_ABORTED', 'x'), { callerSignal: new AbortController().signal }).code,
    ).toBe('PROVIDER_TIMEOUT');
  });

  it('leaves modelUsage out when no model answered', () => {
    expect(map(new ProviderError('anthropic', 'PROVIDER_RATE_LIMITED', 'x', { status: 429 })).details).toEqual({
      provider: 'anthropic',
      providerCode: 'PROVIDER_RATE_LIMITED',
      httpStatus: 429,
    });
  });
});

describe('core errors', () => {
  it("a rejected schema is SCHEMA_REJECTED with the guard's message and rule", () => {
    const error = map(new SchemaRejectedError('remote_ref', '"$ref": "https://x" is not a local reference.'));
    expect([error.code, error.status, error.message, error.details]).toEqual([
      'SCHEMA_REJECTED',
      status.INVALID_ARGUMENT,
      'Schema rejected (remote_ref): "$ref": "https://x" is not a local reference.',
      { rule: 'remote_ref' },
    ]);
  });

  it('a rejected source text is SOURCE_REJECTED', () => {
    const error = map(new SourceTextRejectedError('too_large', 'it is 300000 bytes.'));
    expect([error.code, error.status, error.details]).toEqual([
      'SOURCE_REJECTED',
      status.INVALID_ARGUMENT,
      { rule: 'too_large' },
    ]);
    expect(error.message).toBe('Source text rejected (too_large): it is 300000 bytes.');
  });

  it('data still invalid is EXTRACTION_INVALID listing the errors, with the usage of both calls', () => {
    const error = map(
      new ExtractionInvalidError(["(root) must have required property 'total'", '/date must match format "date"'], 2),
      { usage },
    );
    expect([error.code, error.status]).toEqual(['EXTRACTION_INVALID', status.FAILED_PRECONDITION]);
    expect(error.message).toBe(
      'The extracted data does not match the schema after one repair round: (root) must have required property \'total\'; /date must match format "date".',
    );
    expect(error.details).toEqual({
      errors: ["(root) must have required property 'total'", '/date must match format "date"'],
      attempts: 2,
      modelUsage: usage,
    });
  });
});

describe('errors of other services', () => {
  it('pass through unchanged, with modelUsage added when models were called', () => {
    const notFound = new QuarryError('PLAN_NOT_FOUND', status.NOT_FOUND, 'No research plan with id x.', {
      planId: 'x',
    });
    expect(map(notFound)).toBe(notFound);
    const withUsage = map(notFound, { usage });
    expect([withUsage.code, withUsage.status, withUsage.message, withUsage.details]).toEqual([
      'PLAN_NOT_FOUND',
      status.NOT_FOUND,
      'No research plan with id x.',
      { planId: 'x', modelUsage: usage },
    ]);
  });

  it('anything else is left for the server to report as INTERNAL', () => {
    const bug = new TypeError('x is undefined');
    expect(toExtractionError(bug, { timeoutMs: 1000 })).toBe(bug);
  });

  it('the catalogue codes keep their statuses', () => {
    expect(extractionErrors.SAMPLING_UNAVAILABLE.status).toBe(status.FAILED_PRECONDITION);
    expect(extractionErrors.SAMPLING_FAILED.status).toBe(status.FAILED_PRECONDITION);
    expect(extractionErrors.INVALID_ARGUMENT({ field: 'stepId', rule: 'needs planId' }).message).toBe(
      '`stepId` needs planId.',
    );
  });
});
