import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { identityV1, planV1, toolCatalogue } from '@quarry/contracts';
import { grpcErrors, QuarryError } from '@quarry/grpc';
import {
  createLocalBackend,
  createTools,
  type ToolBackend,
  type ToolCallLog,
  type ToolCallRecord,
} from '@quarry/gateway';
import { createLogger } from '@quarry/telemetry';
import type { FastifyInstance } from 'fastify';
import { identityServiceImplementation } from '../src/identity/service.js';
import { injectPost, MODERN_ENVELOPE, modernToolCall } from './mcp-requests.js';
import { ADA_TOKEN, bearer, buildStubServer, type ServedBy } from './stub-deps.js';

// ADR 0015: a plain 2026-07-28 tools/call is answered by the gateway's fast path instead of the
// SDK's per-request server. The SDK stays the oracle: every request below goes to the gateway
// (fast path on) and to a second HTTP face over the same dispatcher with the fast path off, and
// the two must answer the same JSON. Requests the fast path does not take must reach the SDK.
// The real dispatcher runs the tools: ping in-process as in production, get_plan_status against a
// stand-in for the plan engine that knows one plan (the plan engine's own answers are its tests').

const PLAN_ID = randomUUID();
const records: ToolCallRecord[] = [];
const toolCallLog: ToolCallLog = {
  record: (entry) => void records.push(entry),
  flush: async () => {},
  pending: () => 0,
  close: async () => {},
};

/** PlanService.GetPlanStatus for one plan; a long poll waits until the call is cancelled. */
const planEngine: ToolBackend = {
  async unary(path, bytes, call) {
    if (path === '/quarry.plan.v1.PlanService/RequestUserReview')
      return planV1.RequestUserReviewResponse.encode({
        reviewId: randomUUID(),
        stepStatus: planV1.StepStatus.STEP_STATUS_AWAITING_INPUT,
        planStatus: planV1.PlanStatus.PLAN_STATUS_AWAITING_REVIEW,
      }).finish();
    if (path !== '/quarry.plan.v1.PlanService/GetPlanStatus') throw new Error(`unexpected rpc ${path}`);
    const req = planV1.GetPlanStatusRequest.decode(bytes);
    if (req.planId !== PLAN_ID) throw new QuarryError('PLAN_NOT_FOUND', 5, `No research plan with id ${req.planId}.`);
    if (req.waitSeconds)
      await new Promise((_resolve, reject) =>
        call.signal?.addEventListener('abort', () => reject(grpcErrors.CANCELLED()), { once: true }),
      );
    return planV1.GetPlanStatusResponse.encode({
      planId: PLAN_ID,
      name: 'Fast',
      status: planV1.PlanStatus.PLAN_STATUS_PLANNING,
      derivedStatus: planV1.PlanStatus.PLAN_STATUS_PLANNING,
      stalled: false,
      progress: 0,
      totalSteps: 1,
      completedSteps: [],
      pendingSteps: [],
      archived: false,
    }).finish();
  },
};
const nothingElse: ToolBackend = {
  unary: async () => {
    throw new Error('no rpc expected');
  },
};

let fast: FastifyInstance;
let sdkOnly: FastifyInstance;
let served: ServedBy;

beforeAll(async () => {
  const catalogue = ['ping', 'get_plan_status', 'extract_data', 'request_user_review'].map((name) =>
    toolCatalogue.find((t) => t.name === name)!,
  );
  const tools = createTools({
    catalogue,
    backends: {
      'quarry.identity.v1.IdentityService': createLocalBackend(
        identityV1.IdentityServiceService,
        identityServiceImplementation,
      ),
      'quarry.plan.v1.PlanService': planEngine,
      'quarry.extraction.v1.ExtractionService': nothingElse,
    },
    logger: createLogger({ service: 'test', level: 'silent' }),
    toolCallLog,
  });
  ({ app: fast, served } = await buildStubServer({ tools }));
  ({ app: sdkOnly } = await buildStubServer({ tools, mcpFastPath: false }));
});
afterAll(async () => {
  await fast?.close();
  await sdkOnly?.close();
});

type Call = ReturnType<typeof modernToolCall>;

async function post(app: FastifyInstance, call: Call): Promise<{ status: number; body: unknown }> {
  const { status, headers, text } = await injectPost(app, JSON.stringify(call.body), {
    ...bearer(ADA_TOKEN),
    ...call.headers,
  });
  // JSON, or the SSE stream a 2025-era request is answered with.
  const json = String(headers['content-type']).startsWith('application/json');
  return { status, body: json ? JSON.parse(text) : text };
}

/** The gateway's answer, which path served it, and the SDK's own answer to the same request. */
async function bothWays(call: Call) {
  const before = { ...served };
  const answer = await post(fast, call);
  const path = served.fast > before.fast ? 'fast' : served.sdk > before.sdk ? 'sdk' : 'none';
  const oracle = await post(sdkOnly, call);
  return { answer, oracle, path };
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

  it('for a read of a service and a string request id', async () => {
    const { answer, oracle, path } = await bothWays(modernToolCall('get_plan_status', { planId: PLAN_ID }, 'req-7'));
    expect(path).toBe('fast');
    expect(answer).toEqual(oracle);
    expect(answer.body).toMatchObject({
      id: 'req-7',
      result: { structuredContent: { planId: PLAN_ID, totalSteps: 1 } },
    });
    // The plan it names follows the JSON as resource links (proto-declared), on both paths alike.
    expect((answer.body as { result: { content: unknown[] } }).result.content.slice(1)).toEqual([
      { type: 'resource_link', uri: `quarry://plans/${PLAN_ID}`, name: 'Fast', mimeType: 'application/json' },
      {
        type: 'resource_link',
        uri: `quarry://plans/${PLAN_ID}/report`,
        name: 'Fast (report)',
        mimeType: 'text/markdown',
      },
    ]);
  });

  it('for arguments that fail validation and for a plan that does not exist (tool errors)', async () => {
    for (const args of [{ planId: 'not-a-uuid' }, { planId: '00000000-0000-4000-8000-000000000000' }, {}]) {
      const { answer, oracle, path } = await bothWays(modernToolCall('get_plan_status', args));
      expect(path).toBe('fast');
      expect(answer).toEqual(oracle);
      expect(answer.body).toMatchObject({ result: { isError: true } });
    }
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

  const withCapabilities = (call: Call, capabilities: Record<string, unknown>, meta: Record<string, unknown> = {}) => {
    const params = call.body.params as { _meta: Record<string, unknown> };
    params._meta = { ...params._meta, 'io.modelcontextprotocol/clientCapabilities': capabilities, ...meta };
    return call;
  };
  const extraction = () =>
    modernToolCall('extract_data', {
      text: 'Ada Lovelace, born 1815.',
      schema: { type: 'object', properties: { born: { type: 'integer' } } },
    });

  it.each([
    ['declares sampling (the model may be asked)', { sampling: {} }, {}],
    ['sends a progress token', {}, { progressToken: 'p-1' }],
  ])('a call of a tool that runs a model from a client that %s', async (_what, capabilities, meta) => {
    const { answer, oracle, path } = await bothWays(withCapabilities(extraction(), capabilities, meta));
    expect(path).toBe('sdk');
    expect(answer.status).toBe(oracle.status);
  });

  it('but the same call from a client that can be asked nothing is plain: the fast path answers it as the SDK does', async () => {
    const { answer, oracle, path } = await bothWays(extraction());
    expect(path).toBe('fast');
    expect(answer).toEqual(oracle);
  });
});

describe('a tool that can ask the user (request_user_review)', () => {
  it('goes to the SDK, where its input-required round trip lives', async () => {
    const { answer, oracle, path } = await bothWays(
      modernToolCall('request_user_review', { planId: PLAN_ID, stepId: randomUUID(), summary: 'Done.' }),
    );
    expect(path).toBe('sdk');
    expect(answer.status).toBe(oracle.status);
    expect(answer.body).toMatchObject({ result: { structuredContent: { stepStatus: 'awaiting_input' } } });
  });
});

describe('a client that goes away', () => {
  it('cancels its long-poll on the fast path: the call ends CANCELLED at once, not when the wait would', async () => {
    // A real socket: the client hangs up mid-call, which inject() cannot do.
    const address = await fast.listen({ host: '127.0.0.1', port: 0 });
    const call = modernToolCall('get_plan_status', { planId: PLAN_ID, waitSeconds: 30 }, 'hang-up');
    const started = Date.now();
    await new Promise<void>((resolve) => {
      const req = request(`${address}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...bearer(ADA_TOKEN),
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
    const deadline = Date.now() + 5_000;
    const cancelled = () => records.filter((r) => r.tool === 'get_plan_status' && r.errorCode === 'CANCELLED');
    while (cancelled().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(cancelled()).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(cancelled()[0]!.durationMs).toBeLessThan(5_000);
  });
});
