import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { FastifyInstance } from 'fastify';
import { injectPost, modernRequest, modernToolCall } from './mcp-requests.js';
import { bearer, buildStubServer, member, stubAuthenticator } from './stub-deps.js';

// A request beyond its credential's scopes gets one answer wherever it is found — a tool call on
// either path, reading or listing resources, a prompt that embeds a plan, listening for plan changes: 403, a challenge naming
// the scope and pointing at the protected-resource metadata, the JSON-RPC error
// INSUFFICIENT_SCOPE with the request's own id. (inject() over stub deps, with OAuth metadata.)

const READER = `qry_${'r'.repeat(43)}`;
const WRITER = `qry_${'w'.repeat(43)}`;
const RESOURCE = 'http://127.0.0.1:8080/mcp';
const METADATA = 'http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp';
const authenticator = () =>
  stubAuthenticator({
    [READER]: member('rita', 'acme', ['quarry:read']),
    [WRITER]: member('walt', 'acme', ['quarry:write']),
  });
const oauth = { resource: RESOURCE, authorizationServers: ['http://127.0.0.1:8080'] };
let fast: FastifyInstance;
let sdkOnly: FastifyInstance;

beforeAll(async () => {
  ({ app: fast } = await buildStubServer({ authenticator: authenticator(), oauth }));
  ({ app: sdkOnly } = await buildStubServer({ authenticator: authenticator(), oauth, mcpFastPath: false }));
});
afterAll(async () => {
  await fast?.close();
  await sdkOnly?.close();
});

const PLAN = '00000000-0000-4000-8000-000000000001';
const requests: Array<[string, string, ReturnType<typeof modernRequest>, string]> = [
  ['a call of a tool that writes', READER, modernToolCall('cancel_plan', { planId: PLAN }, 'call-1'), 'quarry:write'],
  ['a call of a tool that reads', WRITER, modernToolCall('get_plan_status', { planId: PLAN }, 7), 'quarry:read'],
  [
    'reading a resource',
    WRITER,
    modernRequest('resources/read', { uri: `quarry://plans/${PLAN}` }, 'r-1'),
    'quarry:read',
  ],
  ['listing resources', WRITER, modernRequest('resources/list', {}, 'l-1'), 'quarry:read'],
  [
    'a prompt that embeds a plan',
    WRITER,
    modernRequest('prompts/get', { name: 'resume_research', arguments: { planId: PLAN } }, 'p-1'),
    'quarry:read',
  ],
  [
    'listening for a plan’s changes',
    WRITER,
    modernRequest(
      'subscriptions/listen',
      { notifications: { resourceSubscriptions: [`quarry://plans/${PLAN}`] } },
      's-1',
    ),
    'quarry:read',
  ],
];

describe('a request beyond its credential’s scopes', () => {
  it.each(requests)('is refused alike: %s', async (_what, token, request, scope) => {
    for (const app of [fast, sdkOnly]) {
      const answer = await injectPost(app, JSON.stringify(request.body), { ...bearer(token), ...request.headers });
      expect(answer.status).toBe(403);
      expect(answer.headers['www-authenticate']).toMatch(
        new RegExp(
          `^Bearer realm="quarry", resource_metadata="${METADATA}", error="insufficient_scope", scope="${scope}", error_description=".+ needs the scope ${scope}, which this token does not have; authorize again with it\\."$`,
        ),
      );
      expect(answer.json).toEqual({
        jsonrpc: '2.0',
        id: request.body.id,
        error: {
          code: -32004,
          message: expect.stringMatching(`needs the scope ${scope}`),
          data: { code: 'INSUFFICIENT_SCOPE', scope },
        },
      });
    }
  });

  it('is not refused for what needs no scope: listing tools, templates, a prompt without a plan, a listen without resources', async () => {
    for (const request of [
      modernRequest('tools/list'),
      modernRequest('prompts/get', { name: 'start_research', arguments: { question: 'Why is the sky blue?' } }),
      modernRequest('resources/templates/list'),
      modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }),
    ]) {
      const answer = await injectPost(fast, JSON.stringify(request.body), { ...bearer(WRITER), ...request.headers });
      expect(answer.status).not.toBe(403);
    }
  });

  it('never names a tool outside the credential’s allowlist: that one is unknown, not beyond scope', async () => {
    const limited = await buildStubServer({
      authenticator: stubAuthenticator({ [READER]: member('rita', 'acme', ['quarry:read'], ['ping']) }),
      oauth,
    });
    const request = modernToolCall('cancel_plan', { planId: PLAN });
    const answer = await injectPost(limited.app, JSON.stringify(request.body), {
      ...bearer(READER),
      ...request.headers,
    });
    await limited.app.close();
    expect(answer.status).toBe(200);
    expect(answer.json.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^Unknown tool: cancel_plan/),
    });
  });
});
