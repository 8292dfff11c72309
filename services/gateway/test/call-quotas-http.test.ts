import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startGatewayOnly } from './gateway-only.js';
import { modernToolCall } from './mcp-requests.js';

// How a call past its org's rate is answered over HTTP. On /mcp it is a tool result the model
// reads (HTTP 200, isError, QUOTA_EXCEEDED naming the quota, its limit, the use and the reset):
// MCP clients take an HTTP error on a JSON-RPC POST for a failed transport. On POST /documents,
// plain HTTP, it is 429 with Retry-After. Write calls are limited to 0 a minute here (the
// operator's default for every org), so the first one is refused.

let gateway: Awaited<ReturnType<typeof startGatewayOnly>>;
beforeAll(async () => {
  gateway = await startGatewayOnly({ QUOTA_CALLS_PER_MINUTE_WRITE: '0' });
});
afterAll(async () => {
  await gateway?.close();
});

describe('a call past its org’s rate', () => {
  it('is a QUOTA_EXCEEDED tool error on /mcp, naming the quota and when it resets', async () => {
    const call = modernToolCall('store_research', {
      artifactType: 'finding',
      title: 'Over quota',
      content: { text: 'x' },
    });
    const res = await gateway.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        ...call.headers,
        authorization: `Bearer ${gateway.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      payload: call.body,
    });
    expect(res.statusCode).toBe(200);
    const { result } = res.json() as { result: { isError: boolean; structuredContent: { error: unknown } } };
    expect(result.isError).toBe(true);
    expect(result.structuredContent.error).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      retryable: true,
      message: expect.stringMatching(/^Quota calls_per_minute\.write exceeded: .* 0 write tool calls per minute/),
      details: { quota: 'calls_per_minute.write', limit: 0, used: 0, resetsAt: expect.any(String) },
    });
    expect(gateway.stub.calls).toHaveLength(0);
    // Counted in the gateway's metrics: the refusal by quota, the org's use among the orgs shown.
    const exposition = await gateway.runtime.metrics.registry.metrics();
    expect(exposition).toMatch(/^quarry_quota_refusals_total\{quota="calls_per_minute\.write",service="gateway"\} 1$/m);
    expect(exposition).toMatch(
      /^quarry_quota_org_limit\{quota="calls_per_minute\.write",org="[0-9a-f-]{36}",service="gateway"\} 0$/m,
    );
  });

  it('is 429 with Retry-After on POST /documents', async () => {
    const res = await gateway.app.inject({
      method: 'POST',
      url: '/documents?name=notes.txt',
      headers: { authorization: `Bearer ${gateway.token}`, 'content-type': 'text/plain' },
      payload: 'Some notes.',
    });
    expect(res.statusCode).toBe(429);
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(res.json()).toMatchObject({ error: { code: 'QUOTA_EXCEEDED', details: { retryAfterSeconds: retryAfter } } });
  });
});
