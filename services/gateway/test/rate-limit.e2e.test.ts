import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LEGACY_INIT, modernToolCall, rawPost, startTestGateway } from './harness.js';

// Each token gets QUARRY_RATE_LIMIT_PER_MINUTE requests a minute on /mcp. A client learns where
// it stands from the x-ratelimit-* headers on every answer, whichever path served it, and past
// the limit gets a 429 with a JSON-RPC error that says when to retry.

const LIMIT = 4;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  gateway = await startTestGateway({ QUARRY_RATE_LIMIT_PER_MINUTE: String(LIMIT) });
});
afterAll(async () => {
  await gateway?.close();
});

/** A 2026-07-28 ping (the fast path serves it). */
const ping = (token: string) => {
  const { headers, body } = modernToolCall('ping', {});
  return rawPost(gateway.url, JSON.stringify(body), { authorization: `Bearer ${token}`, ...headers });
};
/** A 2025-era initialize (the SDK serves it). */
const initialize = (token: string) => rawPost(gateway.url, LEGACY_INIT, { authorization: `Bearer ${token}` });

const newToken = async () =>
  (await gateway.admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test', name: 'rate-limit' })).token;

describe('the per-token rate limit', () => {
  it('counts down in the headers of every answer, fast path and SDK alike', async () => {
    const token = await newToken();
    const answers = [await ping(token), await initialize(token), await ping(token), await initialize(token)];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(answers.map((a) => a.headers.get('x-ratelimit-limit'))).toEqual(Array(LIMIT).fill(String(LIMIT)));
    expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['3', '2', '1', '0']);
    for (const answer of answers) expect(Number(answer.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
  });

  it('answers 429 past the limit, with a JSON-RPC error saying when to retry', async () => {
    const token = await newToken();
    for (let i = 0; i < LIMIT; i++) expect((await ping(token)).status).toBe(200);
    for (const refused of [await ping(token), await initialize(token)]) {
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.json.error?.message).toMatch(
        /^Rate limit exceeded for this token; retry in \d+ (second|minute)s?\.$/,
      );
      expect(refused.json.error?.data?.code).toBe('RATE_LIMITED');
    }
  });

  it('keeps one bucket per token: another token of the same user is not slowed down', async () => {
    const spent = await newToken();
    for (let i = 0; i <= LIMIT; i++) await ping(spent);
    expect((await ping(spent)).status).toBe(429);
    expect((await ping(await newToken())).status).toBe(200);
  });
});
