import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectClient, type Era, startTestGateway } from './harness.js';
import { LEGACY_INIT, rawPost } from './mcp-requests.js';

// ping (the identity family) through the whole system, as a client of either protocol era sees
// it: the catalogue entry, the answer, argument and unknown-tool errors, and real tokens from the
// identity schema — revoked or expired, refused on the very next request. (The HTTP mapping alone,
// over stub dependencies: http-*.test.ts, host-origin, rate-limit and operations.)

let gateway: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
});

describe.each<Era>(['legacy', 'modern'])('an MCP client of the %s era', (era) => {
  it('negotiates its era', async () => {
    const client = await connectClient(gateway.url, gateway.token, era);
    expect(client.getProtocolEra()).toBe(era);
    await client.close();
  });

  it('lists ping with its title, description, schemas and annotations', async () => {
    const client = await connectClient(gateway.url, gateway.token, era);
    const { tools } = await client.listTools();
    const ping = tools.find((t) => t.name === 'ping');
    expect(ping).toMatchObject({
      title: 'Ping',
      description: expect.stringMatching(/reachable/),
      inputSchema: { type: 'object', properties: {} },
      outputSchema: { type: 'object', required: ['message', 'orgSlug', 'userEmail', 'userName'] },
      annotations: { readOnlyHint: true, idempotentHint: true, destructiveHint: false },
    });
    await client.close();
  });

  it('answers ping with who the token belongs to, as structured content and JSON text', async () => {
    const client = await connectClient(gateway.url, gateway.token, era);
    const result = await client.callTool({ name: 'ping', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      message: 'Connected to Quarry as Ada Lovelace (ada@acme.test).',
      orgSlug: 'acme',
      userEmail: 'ada@acme.test',
      userName: 'Ada Lovelace',
    });
    const text = (result.content as Array<{ type: string; text: string }>)[0]!;
    expect(JSON.parse(text.text)).toEqual(result.structuredContent);
    await client.close();
  });

  it('turns bad arguments into a tool error naming the field', async () => {
    const client = await connectClient(gateway.url, gateway.token, era);
    const result = await client.callTool({ name: 'ping', arguments: { verbose: true } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      error: { code: 'INVALID_ARGUMENT', message: expect.stringMatching(/verbose.*not a known field/) },
    });
    await client.close();
  });

  it('refuses an unknown tool with a JSON-RPC invalid-params error', async () => {
    const client = await connectClient(gateway.url, gateway.token, era);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(
      /Unknown tool: no_such_tool/,
    );
    await client.close();
  });
});

describe('authentication with real tokens', () => {
  it('makes the SDK client fail to connect without a token, in both eras', async () => {
    await expect(connectClient(gateway.url, undefined, 'legacy')).rejects.toThrow();
    await expect(connectClient(gateway.url, undefined, 'modern')).rejects.toThrow();
  });

  it('refuses a revoked token on the very next request, even though it was cached', async () => {
    const { token, id } = await gateway.admin.createToken({
      orgSlug: 'acme',
      email: 'ada@acme.test',
      name: 'to revoke',
    });
    const client = await connectClient(gateway.url, token, 'modern');
    expect((await client.callTool({ name: 'ping', arguments: {} })).isError).toBeFalsy();
    await gateway.admin.revokeToken(id);
    await expect(client.callTool({ name: 'ping', arguments: {} })).rejects.toThrow();
    const { status, json } = await rawPost(gateway.url, LEGACY_INIT, { authorization: `Bearer ${token}` });
    expect(status).toBe(401);
    expect(json.error?.message).toMatch(/revoked/);
  });

  it('refuses an expired token', async () => {
    const { token, expiresAt } = await gateway.admin.createToken({
      orgSlug: 'acme',
      email: 'ada@acme.test',
      name: 'short',
      expiresInMs: 1500,
    });
    expect((await rawPost(gateway.url, LEGACY_INIT, { authorization: `Bearer ${token}` })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, expiresAt!.getTime() - Date.now() + 50));
    const { status, json } = await rawPost(gateway.url, LEGACY_INIT, { authorization: `Bearer ${token}` });
    expect(status).toBe(401);
    expect(json.error?.message).toMatch(/expired/);
  });
});

describe('operations endpoints', () => {
  it('reports ready with the runtime checks, and counts tool calls on /metrics', async () => {
    const ready = await fetch(`${gateway.base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: { accepting: true, database: true, revocations: true },
    });
    const metrics = await (await fetch(`${gateway.base}/metrics`)).text();
    expect(metrics).toMatch(/quarry_gateway_tool_calls_total\{.*tool="ping"/);
    expect(metrics).toMatch(/quarry_gateway_tool_call_log_dropped_total/);
  });
});
