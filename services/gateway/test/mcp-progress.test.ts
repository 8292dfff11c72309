import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { grpcErrors } from '@quarry/grpc';
import type { FastifyInstance } from 'fastify';
import { type Era, listenOnLoopback, officialClients, speaking } from './official-client.js';
import { ADA_TOKEN, buildStubServer, type ServedBy, stubTools } from './stub-deps.js';

// Progress notifications for long calls, with the official client SDK in both protocol eras over
// the real gateway and tools, the services stubbed with replies that take their time:
// extract_data's rpc answering after a model's while, and get_plan_status's waiting as long as
// it is asked to. A client that sends a progress token (the SDK does when `onprogress` is given)
// gets notifications/progress while the call runs, on the call's own SSE stream; a client that
// sends none gets today's plain answer.

const SOURCE = 'Moby-Dick; or, The Whale, by Herman Melville. Published 1851 by Harper & Brothers.';
const SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' }, author: { type: 'string' }, year: { type: 'integer' } },
  required: ['title', 'year'],
};
const ANSWER = { title: 'Moby-Dick', author: 'Herman Melville', year: 1851 };
/** How long the stubbed extraction service's model takes to answer. */
const MODEL_DELAY_MS = 1_200;

interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** Resolves after `ms`, or rejects as a cancelled rpc when the call is aborted first. */
const takes = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(grpcErrors.CANCELLED())), { once: true });
  });

const tools = stubTools();
const clients = officialClients();
const connected: Partial<Record<Era, Client>> = {};
let app: FastifyInstance;
let served: ServedBy;

beforeAll(async () => {
  tools.stub.reply('extract_data', async (request, { signal }) => {
    await takes(MODEL_DELAY_MS, signal);
    expect(request).toMatchObject({ sourceText: SOURCE, extractionSchema: SCHEMA });
    return {
      extractionId: randomUUID(),
      data: ANSWER,
      fieldConfidences: { '/title': 0.9, '/author': 0.9, '/year': 0.9 },
      overallConfidence: 0.9,
      status: 'EXTRACTION_STATUS_COMPLETED',
      provider: 'openai',
      model: 'fake-model-1',
      modelUsage: { provider: 'openai', model: 'fake-model-1', inputTokens: '120', outputTokens: '30' },
    };
  });
  tools.stub.reply('get_plan_status', async (request, { signal }) => {
    await takes(Number(request.waitSeconds ?? 0) * 1000, signal);
    return {
      planId: request.planId as string,
      name: 'Progress',
      status: 'PLAN_STATUS_PLANNING',
      derivedStatus: 'PLAN_STATUS_PLANNING',
      stalled: false,
      progress: 0,
      totalSteps: 1,
      completedSteps: [],
      pendingSteps: [],
    };
  });
  tools.stub.reply('list_plans', () => ({ plans: [] }));
  ({ app, served } = await buildStubServer({ tools, longCalls: { progressIntervalMs: 200 } }));
  const url = await listenOnLoopback(app);
  connected.legacy = await clients.connect(url, ADA_TOKEN, speaking('legacy'));
  connected.modern = await clients.connect(url, ADA_TOKEN, speaking('modern'));
});

afterAll(async () => {
  await clients.closeAll();
  await app?.close();
});

describe.each(['legacy', 'modern'] as const)('progress notifications (%s era)', (era) => {
  it('reports a model call while it runs, then answers as without a token', async () => {
    const client = connected[era]!;
    const seen: Progress[] = [];
    const result = await client.callTool(
      { name: 'extract_data', arguments: { sourceText: SOURCE, extractionSchema: SCHEMA } },
      { onprogress: (p) => void seen.push(p) },
    );
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 'completed', provider: 'openai', data: ANSWER });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    // Every notification moves forward; a model call has no known total.
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
    expect(seen.every((p) => p.total === undefined)).toBe(true);
    expect(seen[0]!.message).toMatch(/model is working/);

    // The same call without a token: no notification, the same kind of answer.
    const plain = await client.callTool({
      name: 'extract_data',
      arguments: { sourceText: SOURCE, extractionSchema: SCHEMA },
    });
    expect(plain.structuredContent).toMatchObject({ status: 'completed', provider: 'openai', data: ANSWER });
  });

  it('reports a long poll against the seconds it was asked to wait', async () => {
    const client = connected[era]!;
    const planId = randomUUID();
    const seen: Progress[] = [];
    const started = Date.now();
    const status = await client.callTool(
      { name: 'get_plan_status', arguments: { planId, waitSeconds: 1 } },
      { onprogress: (p) => void seen.push(p) },
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(status.structuredContent).toMatchObject({ planId });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.every((p) => p.total === 1 && p.progress > 0 && p.progress <= 1)).toBe(true);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
  });
});

describe('the tools/call fast path', () => {
  it('takes a quick call even when it carries a progress token: only a long call has progress to report', async () => {
    const client = connected.modern!;
    const before = { ...served };
    await client.callTool({ name: 'list_plans', arguments: {} });
    const plain = { ...served };
    expect(plain.fast).toBe(before.fast + 1);
    const seen: Progress[] = [];
    await client.callTool({ name: 'list_plans', arguments: {} }, { onprogress: (p) => void seen.push(p) });
    const after = { ...served };
    expect(after).toEqual({ fast: plain.fast + 1, sdk: plain.sdk });
    // A quick tool is not a long call: nothing to report.
    expect(seen).toEqual([]);
  });
});
