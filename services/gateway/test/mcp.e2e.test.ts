import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectClient, type Era, LEGACY_INIT, rawPost, startTestGateway } from './harness.js';

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

describe('authentication', () => {
  const unauthenticated = (status: number, headers: Headers, json: { error?: { code: number; message: string } }) => {
    expect(status).toBe(401);
    expect(headers.get('www-authenticate')).toMatch(/^Bearer realm="quarry"/);
    expect(headers.get('content-type')).toMatch(/application\/json/);
    expect(json.error?.code).toBe(-32001);
  };

  it('answers a request without a token with 401, a Bearer challenge and a JSON-RPC error', async () => {
    const { status, headers, json } = await rawPost(gateway.url, LEGACY_INIT);
    unauthenticated(status, headers, json);
    expect(json.error?.message).toMatch(/Authorization: Bearer/);
  });

  it.each([
    ['an unknown token', `qry_${'A'.repeat(43)}`, /not valid/],
    ['a malformed token', 'not-a-quarry-token', /not a Quarry personal access token/],
  ])('answers %s with 401 invalid_token', async (_label, token, message) => {
    const { status, headers, json } = await rawPost(gateway.url, LEGACY_INIT, { authorization: `Bearer ${token}` });
    unauthenticated(status, headers, json);
    expect(headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    expect(json.error?.message).toMatch(message);
  });

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

describe('HTTP-level failures are JSON-RPC errors, never HTML or 5xx', () => {
  const auth = () => ({ authorization: `Bearer ${gateway.token}` });

  it('refuses a foreign Origin with 403 (DNS rebinding)', async () => {
    const { status, json } = await rawPost(gateway.url, LEGACY_INIT, { ...auth(), origin: 'https://evil.example' });
    expect(status).toBe(403);
    expect(json.error).toBeDefined();
  });

  it('accepts a loopback Origin', async () => {
    const { status } = await rawPost(gateway.url, LEGACY_INIT, { ...auth(), origin: 'http://localhost:5173' });
    expect(status).toBe(200);
  });

  it('refuses an oversized body with 413', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'ping', arguments: { pad: 'x'.repeat(5 * 1024 * 1024) } },
    });
    const { status, json } = await rawPost(gateway.url, big, auth());
    expect(status).toBe(413);
    expect(json.error?.data?.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers malformed JSON with 400 and a parse error (-32700)', async () => {
    const { status, json } = await rawPost(gateway.url, '{"jsonrpc": "2.0", "id": 1, "method": ', auth());
    expect(status).toBe(400);
    expect(json.error?.code).toBe(-32700);
  });

  it('answers a non-JSON content type with 415', async () => {
    const { status, json } = await rawPost(gateway.url, 'ping', { ...auth(), 'content-type': 'text/plain' });
    expect(status).toBe(415);
    expect(json.error?.data?.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers an unknown JSON-RPC method with -32601', async () => {
    const { json } = await rawPost(
      gateway.url,
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'quarry/unknown', params: {} }),
      auth(),
    );
    expect(json.error?.code).toBe(-32601);
  });

  it('answers an unknown route with a JSON-RPC 404', async () => {
    const response = await fetch(`${gateway.base}/nope`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/POST \/mcp/);
  });
});

describe('operations endpoints', () => {
  it('serves /healthz, /readyz and /metrics', async () => {
    expect((await fetch(`${gateway.base}/healthz`)).status).toBe(200);
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

  it('echoes or assigns a request id', async () => {
    const given = await fetch(`${gateway.base}/healthz`, { headers: { 'x-request-id': 'req-abc.123' } });
    expect(given.headers.get('x-request-id')).toBe('req-abc.123');
    const assigned = await fetch(`${gateway.base}/healthz`);
    expect(assigned.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
