import { expect } from '@jest/globals';
import { MockAgent, fetch as undiciFetch } from 'undici';
import { ProviderError } from '../src/providers/errors.js';

/**
 * An HTTP mock at the transport for the provider tests: undici's MockAgent (network disabled)
 * behind undici's fetch, handed to the SDK as its `fetch` option. Every request that reaches the
 * mock is recorded with its headers and parsed JSON body, so tests can assert exactly what an
 * adapter sends.
 */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

export interface MockReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Delay before the reply (aborting the request ends the wait). */
  delayMs?: number;
}

export interface HttpMock {
  fetch: typeof globalThis.fetch;
  requests: RecordedRequest[];
  /** Answer the next requests to `path` with these replies, one each, in order. */
  reply(path: string, ...replies: MockReply[]): void;
  /** Answer every request to `path` with this reply. */
  replyAlways(path: string, reply: MockReply): void;
  /** Fails when an interceptor set up with `reply` was never used. */
  assertAllUsed(): void;
  close(): Promise<void>;
}

export function mockHttp(origin: string): HttpMock {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(origin);
  const requests: RecordedRequest[] = [];

  const intercept = (path: string, reply: MockReply) => {
    const scope = pool.intercept({ path, method: 'POST' }).reply((options) => {
      requests.push({
        method: options.method,
        path: options.path,
        headers: lowerCaseHeaders(options.headers),
        body: typeof options.body === 'string' ? JSON.parse(options.body) : options.body,
      });
      return {
        statusCode: reply.status,
        data: typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {}),
        responseOptions: { headers: { 'content-type': 'application/json', ...reply.headers } },
      };
    });
    if (reply.delayMs) scope.delay(reply.delayMs);
    return scope;
  };

  return {
    fetch: ((input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) =>
      undiciFetch(input, { ...init, dispatcher: agent })) as unknown as typeof globalThis.fetch,
    requests,
    reply(path, ...replies) {
      for (const r of replies) intercept(path, r);
    },
    replyAlways(path, reply) {
      intercept(path, reply).persist();
    },
    assertAllUsed() {
      agent.assertNoPendingInterceptors();
    },
    close: () => agent.close(),
  };
}

/** How a provider call failed: it must be a ProviderError. */
export async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

function lowerCaseHeaders(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers && typeof headers === 'object') {
    for (const [k, v] of Object.entries(headers as Record<string, unknown>)) out[k.toLowerCase()] = String(v);
  }
  return out;
}
