import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { FastifyInstance } from 'fastify';
import { injectPost, LEGACY_INIT, modernToolCall } from './mcp-requests.js';
import { ADA, ADA_TOKEN, bearer, buildStubServer, stubAuthenticator, type StubAnswer, stubTools } from './stub-deps.js';

// How the gateway turns the authenticator's verdict into HTTP (inject() over stub deps): every
// refusal is a 401 with a Bearer challenge and a JSON-RPC error saying why, on both MCP paths,
// before the body is read and before any tool runs. (How tokens are resolved, cached and revoked
// is the real authenticator's: authenticator.test.ts.)

const tokens: Record<string, StubAnswer> = {
  [ADA_TOKEN]: ADA,
  'not-a-quarry-token': 'malformed',
  [`qry_${'u'.repeat(43)}`]: 'unknown',
  [`qry_${'e'.repeat(43)}`]: 'expired',
  [`qry_${'r'.repeat(43)}`]: 'revoked',
};
const authenticator = stubAuthenticator(tokens);
const tools = stubTools();
let app: FastifyInstance;

beforeAll(async () => {
  ({ app } = await buildStubServer({ authenticator, tools }));
});
afterAll(async () => {
  await app?.close();
});

type Answer = Awaited<ReturnType<typeof injectPost>>;
const unauthenticated = ({ status, headers, json }: Answer) => {
  expect(status).toBe(401);
  expect(headers['www-authenticate']).toMatch(/^Bearer realm="quarry"/);
  expect(headers['content-type']).toMatch(/application\/json/);
  expect(json.error?.code).toBe(-32001);
  expect(json.error?.data?.code).toBe('UNAUTHENTICATED');
  // Refused before its body is read: there is no id to answer.
  expect(json.id).toBeNull();
};
const modernPing = (headers: Record<string, string>) => {
  const call = modernToolCall('ping', {});
  return injectPost(app, JSON.stringify(call.body), { ...call.headers, ...headers });
};

describe('a request without a valid token', () => {
  it('is answered 401 with a Bearer challenge and a JSON-RPC error when it has no token', async () => {
    const answer = await injectPost(app, LEGACY_INIT);
    unauthenticated(answer);
    expect(answer.headers['www-authenticate']).toBe('Bearer realm="quarry"');
    expect(answer.json.error?.message).toMatch(/Authorization: Bearer/);
  });

  it.each([
    ['a malformed token', 'not-a-quarry-token', /not a Quarry personal access token/],
    ['an unknown token', `qry_${'u'.repeat(43)}`, /not valid/],
    ['an expired token', `qry_${'e'.repeat(43)}`, /expired; create a new one with `quarry token create`/],
    ['a revoked token', `qry_${'r'.repeat(43)}`, /revoked/],
  ])('is answered 401 invalid_token for %s, saying why', async (_what, token, message) => {
    const answer = await injectPost(app, LEGACY_INIT, bearer(token));
    unauthenticated(answer);
    expect(answer.headers['www-authenticate']).toMatch(/error="invalid_token", error_description=".+"/);
    expect(answer.json.error?.message).toMatch(message);
  });

  it('is refused on the fast path too, and no tool runs', async () => {
    const calls = tools.stub.calls.length;
    unauthenticated(await modernPing({}));
    unauthenticated(await modernPing(bearer(`qry_${'r'.repeat(43)}`)));
    expect(tools.stub.calls.length).toBe(calls);
  });

  it('is refused before its body is read: an oversized one is 401, not 413', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(5 * 1024 * 1024) } });
    unauthenticated(await injectPost(app, big));
  });
});

describe('the bearer token', () => {
  const seenFor = async (authorization: string | undefined) => {
    authenticator.seen.length = 0;
    await injectPost(app, LEGACY_INIT, authorization === undefined ? {} : { authorization });
    return authenticator.seen;
  };

  it('is what follows `Bearer` (any case, surrounding spaces ignored)', async () => {
    expect(await seenFor(`Bearer ${ADA_TOKEN}`)).toEqual([ADA_TOKEN]);
    expect(await seenFor(`bearer   ${ADA_TOKEN}  `)).toEqual([ADA_TOKEN]);
  });

  it('is absent without an Authorization header, and never well-formed under another scheme', async () => {
    expect(await seenFor(undefined)).toEqual([undefined]);
    expect(await seenFor('Basic YWRhOnNlY3JldA==')).toEqual(['invalid']);
    expect(await seenFor(`Bearer ${ADA_TOKEN} extra`)).toEqual(['invalid']);
  });

  it('once accepted, is the caller of the tool it calls', async () => {
    const answer = await modernPing(bearer(ADA_TOKEN));
    expect(answer.status).toBe(200);
    expect(answer.json.result.structuredContent).toMatchObject({
      message: 'Connected to Quarry as ada (ada@acme.test).',
    });
    expect(tools.stub.calls.at(-1)).toMatchObject({ tool: 'ping', principal: ADA });
  });
});
