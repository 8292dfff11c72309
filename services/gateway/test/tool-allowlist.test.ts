import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { identityV1, toolCatalogue, type ToolDefinition } from '@quarry/contracts';
import { createLocalBackend, createTools, type Principal } from '@quarry/gateway';
import { QuarryError, status } from '@quarry/grpc';
import { createLogger } from '@quarry/telemetry';
import type { FastifyInstance } from 'fastify';
import { answerLibraryReads } from './library-replies.js';
import { injectPost, MODERN_ENVELOPE, modernToolCall } from './mcp-requests.js';
import { type Era, listenOnLoopback, officialClients, speaking } from './official-client.js';
import { researchRecords } from './research-records.js';
import { bearer, buildStubServer, member, type ServedBy, stubAuthenticator, stubTools } from './stub-deps.js';

// A credential's tool allowlist at the HTTP layer (inject() over the real dispatcher with three
// in-process tools): tools/list shows only what the caller may call, and a call outside the
// allowlist is answered exactly as a call of a tool that does not exist, on either MCP path.
// Then the whole catalogue (the real tools over stub services) as the official MCP client of
// either era sees it: the allowlist and the scopes together, and the allowed calls reaching their
// service; ChatGPT's search and fetch under quarry:read and an allowlist like any tool. (Creating a
// token with an allowlist: the identity admin's, in authenticator.test.ts.)

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

describe.each<Era>(['legacy', 'modern'])('the whole catalogue for an official MCP client of the %s era', (era) => {
  const LIMITED = `qry_${'l'.repeat(43)}`;
  // create_research_plan writes: named, but beyond the token's read scope.
  const reader = member('ada', 'acme', ['quarry:read'], ['get_plan_status', 'search_sources', 'create_research_plan']);
  const ada = member('ada');
  const clients = officialClients();
  const tools = stubTools();
  let catalogue: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    tools.stub.reply('get_plan_status', (request) => {
      throw new QuarryError('PLAN_NOT_FOUND', status.NOT_FOUND, `No research plan with id ${String(request.planId)}.`);
    });
    tools.stub.reply('search_sources', (request) => ({
      query: request.query as string,
      queryType: 'QUERY_TYPE_KEYWORD',
      mode: 'SEARCH_MODE_HYBRID',
      resultCount: 0,
      keywordResults: 0,
      semanticResults: 0,
      results: [],
    }));
    const authenticator = stubAuthenticator({ [tokens.all]: ada, [LIMITED]: reader });
    ({ app: catalogue } = await buildStubServer({ tools, authenticator }));
    url = await listenOnLoopback(catalogue);
  });
  afterAll(async () => {
    await clients.closeAll();
    await catalogue?.close();
  });

  it('with a limited token lists exactly the allowed tools its scopes allow', async () => {
    const client = await clients.connect(url, LIMITED, speaking(era));
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name).sort()).toEqual(['get_plan_status', 'search_sources']);
  });

  it('with a limited token reaches the allowed tools and is refused the others as unknown', async () => {
    const client = await clients.connect(url, LIMITED, speaking(era));
    const calls = tools.stub.calls.length;
    const planStatus = await client.callTool({ name: 'get_plan_status', arguments: { planId: randomUUID() } });
    expect(planStatus.structuredContent).toMatchObject({ error: { code: 'PLAN_NOT_FOUND' } });
    const search = await client.callTool({ name: 'search_sources', arguments: { query: 'anything' } });
    expect(search.isError).toBeFalsy();
    await expect(client.callTool({ name: 'ping', arguments: {} })).rejects.toThrow(/Unknown tool: ping\b/);
    await expect(client.callTool({ name: 'list_plans', arguments: {} })).rejects.toThrow(/Unknown tool: list_plans/);
    // The allowed calls reached their services as this token's; the refused ones reached nothing.
    expect(tools.stub.calls.slice(calls).map((c) => [c.tool, c.principal.tokenId])).toEqual([
      ['get_plan_status', reader.tokenId],
      ['search_sources', reader.tokenId],
    ]);
  });

  it('without an allowlist lists and calls every tool as before', async () => {
    const client = await clients.connect(url, tokens.all, speaking(era));
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name).sort()).toEqual(toolCatalogue.map((t) => t.name).sort());
    expect((await client.callTool({ name: 'ping', arguments: {} })).isError).toBeFalsy();
  });
});

describe("ChatGPT's search and fetch under quarry:read, with an allowlist", () => {
  const READ_ONLY = `qry_${'c'.repeat(43)}`;
  const PAIR = `qry_${'p'.repeat(43)}`;
  const SEARCH_ONLY = `qry_${'s'.repeat(43)}`;
  const WRITE_ONLY = `qry_${'o'.repeat(43)}`;
  const records = researchRecords();
  const clients = officialClients();
  let chatgpt: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    const reader = member('rita', 'acme', ['quarry:read']);
    records.addArtifact(reader.orgId, { artifactType: 'finding', title: 'Glaciers', content: {}, contentText: 'ice' });
    const tools = stubTools();
    answerLibraryReads(tools.stub, records);
    const authenticator = stubAuthenticator({
      [READ_ONLY]: reader,
      [PAIR]: member('pat', 'acme', ['quarry:read'], ['search', 'fetch']),
      [SEARCH_ONLY]: member('sol', 'acme', ['quarry:read'], ['search']),
      [WRITE_ONLY]: member('walt', 'acme', ['quarry:write']),
    });
    ({ app: chatgpt } = await buildStubServer({ tools, authenticator }));
    url = await listenOnLoopback(chatgpt);
  });
  afterAll(async () => {
    await clients.closeAll();
    await chatgpt?.close();
  });

  it('a read-only token lists and calls both; an allowlist narrows them like any tool', async () => {
    const read = await clients.connect(url, READ_ONLY, speaking('legacy'));
    const names = (await read.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['search', 'fetch']));
    const found = (await read.callTool({ name: 'search', arguments: { query: 'glaciers' } })).structuredContent as {
      results: Array<{ id: string }>;
    };
    expect(found.results).toHaveLength(1);
    expect((await read.callTool({ name: 'fetch', arguments: { id: found.results[0]!.id } })).isError).toBeFalsy();

    const pair = await clients.connect(url, PAIR, speaking('legacy'));
    expect((await pair.listTools()).tools.map((t) => t.name).sort()).toEqual(['fetch', 'search']);
    const searchOnly = await clients.connect(url, SEARCH_ONLY, speaking('modern'));
    expect((await searchOnly.listTools()).tools.map((t) => t.name)).toEqual(['search']);
    await expect(searchOnly.callTool({ name: 'fetch', arguments: { id: found.results[0]!.id } })).rejects.toThrow(
      /Unknown tool: fetch\b/,
    );
  });

  it('a token without quarry:read sees neither and is refused both with insufficient_scope', async () => {
    const writer = await clients.connect(url, WRITE_ONLY, speaking('legacy'));
    const names = (await writer.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('search');
    expect(names).not.toContain('fetch');
    for (const [name, args] of [
      ['search', { query: 'glaciers' }],
      ['fetch', { id: 'anything' }],
    ] as const) {
      const request = modernToolCall(name, args);
      const answer = await injectPost(chatgpt, JSON.stringify(request.body), {
        ...request.headers,
        ...bearer(WRITE_ONLY),
      });
      expect(answer.status).toBe(403);
      expect(answer.json.error?.data).toEqual({ code: 'INSUFFICIENT_SCOPE', scope: 'quarry:read' });
    }
  });
});
