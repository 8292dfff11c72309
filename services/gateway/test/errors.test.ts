import { describe, expect, it } from '@jest/globals';
import { status } from '@grpc/grpc-js';
import { httpErrors, jsonRpcErrorBody, toolErrorFromStatus } from '@quarry/gateway';

describe('the gateway error catalogue', () => {
  it('gives every HTTP failure a JSON-RPC error body with a stable code', () => {
    for (const code of Object.keys(httpErrors) as Array<keyof typeof httpErrors>) {
      const body = jsonRpcErrorBody(code, 'why');
      expect(body).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: httpErrors[code].rpc, message: 'why', data: { code } },
      });
    }
  });

  it('never answers bad input with a 5xx', () => {
    const clientErrors = [
      'UNAUTHENTICATED',
      'FORBIDDEN_ORIGIN',
      'RATE_LIMITED',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'PARSE_ERROR',
      'INVALID_REQUEST',
      'NOT_FOUND',
    ] as const;
    for (const code of clientErrors) expect(httpErrors[code].http).toBeLessThan(500);
  });

  it('passes a service message and code through for client-side problems', () => {
    expect(toolErrorFromStatus(status.NOT_FOUND, 'PLAN_NOT_FOUND', 'Plan 123 not found.', 'req-1')).toEqual({
      code: 'PLAN_NOT_FOUND',
      message: 'Plan 123 not found.',
      retryable: false,
    });
    expect(toolErrorFromStatus(status.FAILED_PRECONDITION, undefined, '', 'req-1')).toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: expect.stringMatching(/current state/),
    });
  });

  it('marks transient failures as retryable', () => {
    for (const s of [status.UNAVAILABLE, status.DEADLINE_EXCEEDED, status.ABORTED, status.RESOURCE_EXHAUSTED]) {
      expect(toolErrorFromStatus(s, undefined, undefined, 'r').retryable).toBe(true);
    }
  });

  it('hides internals: INTERNAL, UNKNOWN and DATA_LOSS say only that it failed and the request id', () => {
    for (const s of [status.INTERNAL, status.UNKNOWN, status.DATA_LOSS]) {
      const shaped = toolErrorFromStatus(s, 'DB_EXPLODED', 'relation "plan.steps" does not exist', 'req-42');
      expect(shaped.code).toBe('INTERNAL');
      expect(shaped.message).toContain('req-42');
      expect(shaped.message).not.toContain('relation');
    }
  });
});
