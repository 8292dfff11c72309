import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startGatewayOnly } from './gateway-only.js';
import { LEGACY_INIT, rawPost } from './mcp-requests.js';
import { officialClients, speaking } from './official-client.js';

// The gateway's runtime with real tokens from the identity schema (the gateway alone over its own
// database, services stubbed): no token, a token revoked or expired — refused on the very next
// request, cached or not — and the operations endpoints with the runtime's own checks and
// counters. (ping's MCP shapes over stub deps: identity-tools.test.ts.)

let gateway: Awaited<ReturnType<typeof startGatewayOnly>>;
const clients = officialClients();

beforeAll(async () => {
  gateway = await startGatewayOnly();
});
afterAll(async () => {
  await clients.closeAll();
  await gateway?.close();
});

describe('authentication with real tokens', () => {
  it('makes the SDK client fail to connect without a token, in both eras', async () => {
    await expect(clients.connect(gateway.url, undefined, speaking('legacy'))).rejects.toThrow();
    await expect(clients.connect(gateway.url, undefined, speaking('modern'))).rejects.toThrow();
  });

  it('refuses a revoked token on the very next request, even though it was cached', async () => {
    const { token, id } = await gateway.admin.createToken({
      orgSlug: 'acme',
      email: 'ada@acme.test',
      name: 'to revoke',
    });
    const client = await clients.connect(gateway.url, token, speaking('modern'));
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
    const client = await clients.connect(gateway.url, gateway.token, speaking('modern'));
    expect((await client.callTool({ name: 'ping', arguments: {} })).isError).toBeFalsy();
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
