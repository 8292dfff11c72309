import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { createMcpHandler, type McpHttpHandler, Server } from '@modelcontextprotocol/server';
import { createPlanSubscriptions } from '../src/mcp/subscriptions/plan-subscriptions.js';
import { parsePlanChange } from '../src/mcp/subscriptions/plan-change-feed.js';
import { planResourceOf } from '../src/mcp/subscriptions/plan-uris.js';
import { MODERN_ENVELOPE } from './mcp-requests.js';

// The org partition of listen streams, with the SDK's own handler and listen router: which
// stream hears which change. End to end (PostgreSQL feed, replicas): plan-subscriptions.e2e.test.ts.

const ORG_A = randomUUID();
const ORG_B = randomUUID();

function endpoint() {
  const subscriptions = createPlanSubscriptions();
  const handler = createMcpHandler(
    ({ era }) => {
      const server = new Server({ name: 'quarry', version: '0.0.0' }, { capabilities: {} });
      const subscribe = subscriptions.capabilitiesFor(era);
      if (subscribe) server.registerCapabilities(subscribe);
      return server;
    },
    { legacy: 'stateless', bus: subscriptions.bus, keepAliveMs: 0 },
  );
  return { subscriptions, handler: subscriptions.serve(handler) };
}

/** Opens a listen stream as a member of `orgId` (with `scopes`) for `uris`. */
function listen(handler: McpHttpHandler, orgId: string, uris: string[], scopes = ['quarry:read']) {
  const body = {
    jsonrpc: '2.0',
    id: `listen:${randomUUID()}`,
    method: 'subscriptions/listen',
    params: { notifications: { resourceSubscriptions: uris }, _meta: MODERN_ENVELOPE },
  };
  const request = new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify(body),
  });
  const principal = { orgId, tokenId: randomUUID(), scopes };
  return handler.fetch(request, {
    parsedBody: body,
    authInfo: { token: '', clientId: principal.tokenId, scopes, extra: { principal, requestId: 'r' } },
  });
}

/** Every JSON-RPC message of a finished SSE body. */
async function messagesOf(response: Response): Promise<Array<{ method?: string; params?: { uri?: string } }>> {
  const text = await response.text();
  return [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as { method?: string });
}

const updatedUris = (messages: Awaited<ReturnType<typeof messagesOf>>) =>
  messages.filter((m) => m.method === 'notifications/resources/updated').map((m) => m.params!.uri);

describe('plan subscriptions', () => {
  it('tells each org only of its own plans, even for the same plan URI opened concurrently', async () => {
    const { subscriptions, handler } = endpoint();
    const planId = randomUUID();
    const uri = `quarry://plans/${planId}`;
    const [a, b] = await Promise.all([listen(handler, ORG_A, [uri]), listen(handler, ORG_B, [uri])]);
    expect(subscriptions.openCount()).toBe(2);
    subscriptions.changed(ORG_A, planId, 'plan');
    subscriptions.changed(ORG_A, planId, 'plan');
    subscriptions.changed(ORG_B, planId, 'plan');
    await handler.close();
    expect(updatedUris(await messagesOf(a))).toEqual([uri, uri]);
    expect(updatedUris(await messagesOf(b))).toEqual([uri]);
    expect(subscriptions.openCount()).toBe(0);
  });

  it('names the URIs as the client wrote them, for the plan in any letter case', async () => {
    const { subscriptions, handler } = endpoint();
    const planId = randomUUID();
    const uris = [`quarry://plans/${planId.toUpperCase()}`, `quarry://plans/${planId}/report`];
    const stream = await listen(handler, ORG_A.toUpperCase(), [...uris, 'quarry://artifacts/x', 'https://example.com']);
    subscriptions.changed(ORG_A, planId, 'plan');
    subscriptions.changed(ORG_A, randomUUID(), 'plan');
    await handler.close();
    expect(updatedUris(await messagesOf(stream))).toEqual(uris);
  });

  it('tells of a deliverable stored or deleted on the report only', async () => {
    const { subscriptions, handler } = endpoint();
    const planId = randomUUID();
    const [status, report] = [`quarry://plans/${planId}`, `quarry://plans/${planId}/report`];
    const stream = await listen(handler, ORG_A, [status, report]);
    subscriptions.changed(ORG_A, planId, 'deliverables');
    subscriptions.changed(ORG_A, planId, 'plan');
    await handler.close();
    expect(updatedUris(await messagesOf(stream))).toEqual([report, status, report]);
  });

  it('after a deaf spell, tells every stream that each of its plans may have changed', async () => {
    const { subscriptions, handler } = endpoint();
    const [p, q] = [randomUUID(), randomUUID()];
    const a = await listen(handler, ORG_A, [`quarry://plans/${p}`]);
    const b = await listen(handler, ORG_B, [`quarry://plans/${q}/report`]);
    subscriptions.resumed();
    await handler.close();
    expect(updatedUris(await messagesOf(a))).toEqual([`quarry://plans/${p}`]);
    expect(updatedUris(await messagesOf(b))).toEqual([`quarry://plans/${q}/report`]);
  });

  it('delivers nothing to a stream opened outside a caller scope, nor an update published without an org', () => {
    const errors: Error[] = [];
    const subscriptions = createPlanSubscriptions({ onerror: (e) => errors.push(e) });
    const heard: unknown[] = [];
    const unsubscribe = subscriptions.bus.subscribe((event) => heard.push(event));
    subscriptions.changed(ORG_A, randomUUID(), 'plan');
    subscriptions.resumed();
    subscriptions.bus.publish({ kind: 'resource_updated', uri: 'quarry://plans/x' });
    unsubscribe();
    expect(heard).toEqual([]);
    expect(subscriptions.openCount()).toBe(0);
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/outside a caller scope/),
      expect.stringMatching(/without an org/),
    ]);
  });

  it('ends every open stream on close, and refuses new ones while shutting down', async () => {
    const { subscriptions, handler } = endpoint();
    const stream = await listen(handler, ORG_A, [`quarry://plans/${randomUUID()}`]);
    subscriptions.close();
    expect(await messagesOf(stream)).toEqual([
      expect.objectContaining({ method: 'notifications/subscriptions/acknowledged' }),
    ]);
    expect(subscriptions.openCount()).toBe(0);
    const refused = await listen(handler, ORG_A, [`quarry://plans/${randomUUID()}`]);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ error: { data: { code: 'UNAVAILABLE' } } });
  });
});

describe('plan resource URIs and feed payloads', () => {
  it.each([
    ['quarry://plans/ABC', { planId: 'abc', report: false }],
    ['quarry://plans/abc/report', { planId: 'abc', report: true }],
    ['quarry://plans/a%2Fb', { planId: 'a/b', report: false }],
    ['quarry://plans/abc/steps', undefined],
    ['quarry://plans/', undefined],
    ['quarry://artifacts/abc', undefined],
    ['quarry://plans/%E0%A4%A', undefined],
  ])('%s is the plan resource %j', (uri, resource) => {
    expect(planResourceOf(uri)).toEqual(resource);
  });

  it.each([
    ['A1:B2', { orgId: 'a1', planId: 'b2' }],
    ['a1', undefined],
    ['a1:', undefined],
    ['a1:b2:c3', undefined],
  ])('payload %s', (payload, change) => {
    expect(parsePlanChange(payload)).toEqual(change);
  });
});
