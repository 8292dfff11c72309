import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { buildServer } from '@quarry/gateway';
import { type Kysely, sql } from 'kysely';
import { startTestGateway } from './harness.js';
import { MODERN_ENVELOPE, modernToolCall } from './mcp-requests.js';

// ADR 0015: a plain 2026-07-28 tools/call is answered by the gateway's fast path instead of the
// SDK's per-request server. The SDK stays the oracle: every request below goes to the gateway
// (fast path on) and to a second HTTP face of the same runtime with the fast path off, and the
// two must answer the same JSON. Requests the fast path does not take must reach the SDK.

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let sdkOnly: Awaited<ReturnType<typeof buildServer>>;
let sdkUrl: string;

type Call = ReturnType<typeof modernToolCall>;

async function post(url: string, call: Call, token = gateway.token): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      ...call.headers,
    },
    body: JSON.stringify(call.body),
  });
  const text = await response.text();
  // JSON, or the SSE stream a 2025-era request is answered with.
  return {
    status: response.status,
    body: response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text,
  };
}

async function servedBy(): Promise<{ fast: number; sdk: number }> {
  const text = await (await fetch(`${gateway.base}/metrics`)).text();
  const count = (path: string) =>
    Number(
      new RegExp(`^quarry_gateway_mcp_requests_total\\{[^}]*path="${path}"[^}]*\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0,
    );
  return { fast: count('fast'), sdk: count('sdk') };
}

/** The gateway's answer, which path served it, and the SDK's own answer to the same request. */
async function bothWays(call: Call) {
  const before = await servedBy();
  const answer = await post(gateway.url, call);
  const after = await servedBy();
  const oracle = await post(sdkUrl, call);
  return { answer, oracle, path: after.fast > before.fast ? 'fast' : after.sdk > before.sdk ? 'sdk' : 'none' };
}

beforeAll(async () => {
  gateway = await startTestGateway();
  sdkOnly = await buildServer({ ...gateway.runtime.deps, mcpFastPath: false });
  await sdkOnly.listen({ host: '127.0.0.1', port: 0 });
  const address = sdkOnly.server.address();
  sdkUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp`;
});
afterAll(async () => {
  await sdkOnly?.close();
  await gateway?.close();
});

async function newPlan(): Promise<string> {
  const { answer } = await bothWays(
    modernToolCall('create_research_plan', {
      name: 'Fast',
      researchQuestion: 'Is the fast path the same?',
      steps: [{ stepType: 'search', instructions: 'Look' }],
    }),
  );
  return (answer.body as { result: { structuredContent: { planId: string } } }).result.structuredContent.planId;
}

describe('the tools/call fast path answers what the SDK answers', () => {
  it('for a successful call, with the result type and server info of the 2026-07-28 era', async () => {
    const { answer, oracle, path } = await bothWays(modernToolCall('ping', {}));
    expect(path).toBe('fast');
    expect(answer).toEqual(oracle);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'complete',
        structuredContent: { orgSlug: 'acme' },
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'quarry' } },
      },
    });
  });

  it('for a read of stored data and a string request id', async () => {
    const planId = await newPlan();
    const { answer, oracle, path } = await bothWays(modernToolCall('get_plan_status', { planId }, 'req-7'));
    expect(path).toBe('fast');
    expect(answer).toEqual(oracle);
    expect(answer.body).toMatchObject({ id: 'req-7', result: { structuredContent: { planId, totalSteps: 1 } } });
  });

  it('for arguments that fail validation and for a plan that does not exist (tool errors)', async () => {
    for (const args of [{ planId: 'not-a-uuid' }, { planId: '00000000-0000-4000-8000-000000000000' }, {}]) {
      const { answer, oracle, path } = await bothWays(modernToolCall('get_plan_status', args));
      expect(path).toBe('fast');
      expect(answer).toEqual(oracle);
      expect(answer.body).toMatchObject({ result: { isError: true } });
    }
  });

  it("treats another org's plan exactly like a missing one", async () => {
    const planId = await newPlan();
    await gateway.admin.createOrg({ slug: 'other', name: 'Other' });
    await gateway.admin.addUser({ email: 'eve@other.test', orgSlug: 'other', name: 'Eve' });
    const { token } = await gateway.admin.createToken({ orgSlug: 'other', email: 'eve@other.test', name: 'eve' });
    const foreign = await post(gateway.url, modernToolCall('get_plan_status', { planId }), token);
    const missing = await post(
      gateway.url,
      modernToolCall('get_plan_status', { planId: '00000000-0000-4000-8000-000000000000' }),
      token,
    );
    const code = (body: unknown) =>
      (body as { result: { structuredContent: { error: { code: string } } } }).result.structuredContent.error.code;
    expect(code(foreign.body)).toBe('PLAN_NOT_FOUND');
    expect(code(missing.body)).toBe(code(foreign.body));
  });
});

describe('what the fast path leaves to the SDK', () => {
  const cases: Array<[string, () => Call]> = [
    ['an unknown tool', () => modernToolCall('no_such_tool', {})],
    [
      'an Mcp-Name header that names another tool',
      () => ({
        ...modernToolCall('ping', {}),
        headers: { ...modernToolCall('ping', {}).headers, 'mcp-name': 'get_plan_status' },
      }),
    ],
    [
      'a missing Mcp-Method header',
      () => ({ ...modernToolCall('ping', {}), headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-name': 'ping' } }),
    ],
    [
      'an envelope without client info',
      () => {
        const call = modernToolCall('ping', {});
        (call.body.params as { _meta: Record<string, unknown> })._meta = {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        };
        return call;
      },
    ],
    [
      'a retry carrying requestState',
      () => {
        const call = modernToolCall('ping', {});
        (call.body.params as Record<string, unknown>).requestState = 'forged';
        return call;
      },
    ],
    [
      'arguments that are not an object',
      () => {
        const call = modernToolCall('ping', {});
        (call.body.params as Record<string, unknown>).arguments = ['x'];
        return call;
      },
    ],
    [
      'a 2025-era request (no envelope, no version header)',
      () => ({
        headers: {},
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ping', arguments: {} } },
      }),
    ],
    [
      'a notification',
      () => ({
        headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'ping' },
        body: { jsonrpc: '2.0', method: 'tools/call', params: { name: 'ping', _meta: MODERN_ENVELOPE } },
      }),
    ],
  ];
  it.each(cases)('%s', async (_name, make) => {
    const { answer, oracle, path } = await bothWays(make());
    expect(path).toBe('sdk');
    expect(answer).toEqual(oracle);
  });

  it('a tool that can ask for the client model (extract_data)', async () => {
    const { answer, oracle, path } = await bothWays(
      modernToolCall('extract_data', {
        text: 'Ada Lovelace, born 1815.',
        schema: { type: 'object', properties: { born: { type: 'integer' } } },
      }),
    );
    expect(path).toBe('sdk');
    expect(answer.status).toBe(oracle.status);
  });
});

describe('a client that goes away', () => {
  it('cancels its long-poll on the fast path: the call ends CANCELLED at once, not when the wait would', async () => {
    const planId = await newPlan();
    const call = modernToolCall('get_plan_status', { planId, waitSeconds: 30 }, 'hang-up');
    const started = Date.now();
    await new Promise<void>((resolve) => {
      const req = request(gateway.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${gateway.token}`,
          ...call.headers,
        },
      });
      req.on('error', () => resolve());
      req.end(JSON.stringify(call.body));
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 300);
    });
    const admin = gateway.database.admin as Kysely<unknown>;
    const deadline = Date.now() + 5_000;
    let logged: { error_code: string | null; duration_ms: number }[] = [];
    while (logged.length === 0 && Date.now() < deadline) {
      await gateway.runtime.flushToolCallLog();
      ({ rows: logged } = await sql<{ error_code: string | null; duration_ms: number }>`
        select error_code, duration_ms from gateway.mcp_tool_call_log where request_id is not null and tool = 'get_plan_status' and error_code = 'CANCELLED'
      `.execute(admin));
      if (logged.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(logged).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(logged[0]!.duration_ms).toBeLessThan(5_000);
  });
});
