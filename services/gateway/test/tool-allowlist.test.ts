import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { identityV1, toolCatalogue, type ToolDefinition } from '@quarry/contracts';
import { createLocalBackend, createTools, type Principal } from '@quarry/gateway';
import { createLogger } from '@quarry/telemetry';
import type { FastifyInstance } from 'fastify';
import { injectPost, MODERN_ENVELOPE, modernToolCall } from './mcp-requests.js';
import { bearer, buildStubServer, member, type ServedBy, stubAuthenticator } from './stub-deps.js';

// A credential's tool allowlist at the HTTP layer (inject() over the real dispatcher with three
// in-process tools): tools/list shows only what the caller may call, and a call outside the
// allowlist is answered exactly as a call of a tool that does not exist, on either MCP path.

const ping = toolCatalogue.find((t) => t.name === 'ping')!;
// The same rpc under other names: one read-only, one that writes (needs quarry:write).
const whoami: ToolDefinition = { ...ping, name: 'whoami' };
const touch: ToolDefinition = { ...ping, name: 'touch', annotations: { ...ping.annotations, readOnlyHint: false } };
const implementation = {
  ping: async (_request: unknown, { principal }: { principal: Principal }) => ({
    message: `hi ${principal.name}`,
    orgSlug: principal.orgSlug,
    userEmail: principal.email,
    userName: principal.name,
  }),
};

const tokens = {
  all: `qry_${'a'.repeat(43)}`,
  whoamiOnly: `qry_${'w'.repeat(43)}`,
  readOnly: `qry_${'r'.repeat(43)}`,
  touchButRead: `qry_${'t'.repeat(43)}`,
};
const principals: Record<keyof typeof tokens, Principal> = {
  all: member('ada'),
  whoamiOnly: member('wes', 'acme', ['quarry:read', 'quarry:write'], ['whoami']),
  readOnly: member('rae', 'acme', ['quarry:read']),
  // Allowed touch by name, but not by scope: the scope still decides.
  touchButRead: member('tom', 'acme', ['quarry:read'], ['touch', 'ping']),
};

let app: FastifyInstance;
let served: ServedBy;

beforeAll(async () => {
  const tools = createTools({
    catalogue: [ping, whoami, touch],
    backends: { [ping.rpc.service]: createLocalBackend(identityV1.IdentityServiceService, implementation) },
    logger: createLogger({ service: 'test', level: 'silent' }),
  });
  const table = Object.fromEntries(Object.entries(tokens).map(([k, t]) => [t, principals[k as keyof typeof tokens]]));
  ({ app, served } = await buildStubServer({ tools, authenticator: stubAuthenticator(table) }));
});
afterAll(async () => {
  await app?.close();
});

async function listed(token: string, era: 'legacy' | 'modern'): Promise<string[]> {
  const answer =
    era === 'modern'
      ? await injectPost(
          app,
          JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_ENVELOPE } }),
          { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list', ...bearer(token) },
        )
      : await injectPost(app, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }), {
          'mcp-protocol-version': '2025-11-25',
          ...bearer(token),
        });
  expect(answer.status).toBe(200);
  return (answer.json.result.tools as Array<{ name: string }>).map((t) => t.name);
}

async function call(token: string, name: string) {
  const request = modernToolCall(name, {});
  return injectPost(app, JSON.stringify(request.body), { ...request.headers, ...bearer(token) });
}

describe.each(['legacy', 'modern'] as const)('tools/list for a %s client', (era) => {
  it('shows every tool to a credential without an allowlist, unchanged', async () => {
    expect(await listed(tokens.all, era)).toEqual(['ping', 'whoami', 'touch']);
  });

  it('shows only the tools of the allowlist', async () => {
    expect(await listed(tokens.whoamiOnly, era)).toEqual(['whoami']);
  });

  it('shows only the tools the scopes allow, with or without an allowlist', async () => {
    expect(await listed(tokens.readOnly, era)).toEqual(['ping', 'whoami']);
    expect(await listed(tokens.touchButRead, era)).toEqual(['ping']);
  });
});

describe('tools/call outside the allowlist', () => {
  it('is answered exactly like a tool that does not exist, by the SDK rather than the fast path', async () => {
    const before = { ...served };
    const refused = await call(tokens.whoamiOnly, 'ping');
    const unknown = await call(tokens.whoamiOnly, 'no_such_tool');
    expect(refused.status).toBe(unknown.status);
    expect(refused.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown tool: ping/) });
    expect(JSON.stringify(refused.json).replaceAll('ping', 'no_such_tool')).toBe(JSON.stringify(unknown.json));
    expect(served.sdk - before.sdk).toBe(2);
    expect(served.fast).toBe(before.fast);
  });

  it('is refused as unknown even where the scope would also refuse it: no 403 gives it away', async () => {
    const refused = await call(tokens.whoamiOnly, 'touch');
    expect(refused.status).toBe(200);
    expect(refused.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown tool: touch/) });
    const beyondScope = await call(tokens.touchButRead, 'touch');
    expect(beyondScope.status).toBe(403);
    expect(beyondScope.json.error?.data?.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('leaves the allowed tools and unlimited credentials as they were (fast path included)', async () => {
    const before = served.fast;
    expect((await call(tokens.whoamiOnly, 'whoami')).json.result.structuredContent).toMatchObject({
      message: 'hi wes',
    });
    expect((await call(tokens.all, 'ping')).json.result.structuredContent).toMatchObject({ message: 'hi ada' });
    expect(served.fast - before).toBe(2);
  });
});

describe('an allowlist narrowed while a cached principal is being confirmed', () => {
  it('answers from the fresh lookup: the call is refused as unknown, not failed', async () => {
    const stale = member('sam', 'acme', ['quarry:read', 'quarry:write']);
    const fresh = { ...stale, tools: ['whoami'] };
    const authenticator = stubAuthenticator({ [tokens.all]: fresh });
    // The cache still holds the unlimited principal; its revocation barrier says it is stale.
    authenticator.authenticateUnconfirmed = async () => ({
      ok: true,
      principal: stale,
      confirmed: Promise.resolve(false),
    });
    const tools = createTools({
      catalogue: [ping, whoami, touch],
      backends: { [ping.rpc.service]: createLocalBackend(identityV1.IdentityServiceService, implementation) },
      logger: createLogger({ service: 'test', level: 'silent' }),
    });
    const { app: racing } = await buildStubServer({ tools, authenticator });
    try {
      const request = modernToolCall('touch', {});
      const answer = await injectPost(racing, JSON.stringify(request.body), {
        ...request.headers,
        ...bearer(tokens.all),
      });
      expect(answer.status).toBe(200);
      expect(answer.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown tool: touch/) });
    } finally {
      await racing.close();
    }
  });
});
