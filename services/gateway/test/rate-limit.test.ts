import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { FastifyInstance } from 'fastify';
import { injectPost, LEGACY_INIT, modernToolCall } from './mcp-requests.js';
import { bearer, buildStubServer, member, stubAuthenticator, type ServedBy } from './stub-deps.js';

// Each token gets QUARRY_RATE_LIMIT_PER_MINUTE requests a minute on /mcp. A client learns where
// it stands from the x-ratelimit-* headers on every answer, whichever path served it, and past
// the limit gets a 429 with a JSON-RPC error that says when to retry. (inject() over stub deps.)

const LIMIT = 4;
/** Two tokens of the same user. */
const [first, second] = ['one', 'two'].map((t) => `qry_${t.padEnd(43, '0')}`) as [string, string];
const ada = member('ada');
const principals = { [first]: { ...ada, tokenId: randomUUID() }, [second]: { ...ada, tokenId: randomUUID() } };
let app: FastifyInstance;
let served: ServedBy;

// A fresh server per test: the buckets live in it.
beforeEach(async () => {
  ({ app, served } = await buildStubServer({
    authenticator: stubAuthenticator(principals),
    http: { rateLimitPerMinute: LIMIT },
  }));
});
afterEach(async () => {
  await app?.close();
});

/** A 2026-07-28 ping (the fast path serves it). */
const ping = (token: string) => {
  const { headers, body } = modernToolCall('ping', {});
  return injectPost(app, JSON.stringify(body), { ...bearer(token), ...headers });
};
/** A 2025-era initialize (the SDK serves it). */
const initialize = (token: string) => injectPost(app, LEGACY_INIT, bearer(token));

describe('the per-token rate limit', () => {
  it('counts down in the headers of every answer, fast path and SDK alike', async () => {
    const answers = [await ping(first), await initialize(first), await ping(first), await initialize(first)];
    expect(served).toEqual({ fast: 2, sdk: 2 });
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(answers.map((a) => a.headers['x-ratelimit-limit'])).toEqual(Array(LIMIT).fill(String(LIMIT)));
    expect(answers.map((a) => a.headers['x-ratelimit-remaining'])).toEqual(['3', '2', '1', '0']);
    for (const answer of answers) expect(Number(answer.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
  });

  it('answers 429 past the limit, with a JSON-RPC error saying when to retry', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await ping(first)).status).toBe(200);
    for (const refused of [await ping(first), await initialize(first)]) {
      expect(refused.status).toBe(429);
      expect(refused.headers['content-type']).toMatch(/application\/json/);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
      expect(refused.json.error?.message).toMatch(
        /^Rate limit exceeded for this token; retry in \d+ (second|minute)s?\.$/,
      );
      expect(refused.json.error?.code).toBe(-32003);
      expect(refused.json.id).toBe(1);
      expect(refused.json.error?.data?.code).toBe('RATE_LIMITED');
    }
    expect(served).toEqual({ fast: LIMIT, sdk: 0 });
  });

  it('keeps one bucket per token: another token of the same user is not slowed down', async () => {
    for (let i = 0; i <= LIMIT; i++) await ping(first);
    expect((await ping(first)).status).toBe(429);
    expect((await ping(second)).status).toBe(200);
  });
});
