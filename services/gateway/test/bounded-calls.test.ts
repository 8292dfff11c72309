import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { createTools } from '@quarry/gateway';
import { createLogger } from '@quarry/telemetry';
import { toolCatalogue } from '@quarry/contracts';
import type { FastifyInstance } from 'fastify';
import { budgetWithin, capWait } from '../src/mcp/call-modes/bounded.js';
import { type Era, listenOnLoopback, officialClients, speaking } from './official-client.js';
import { stubBackends } from './stub-backend.js';
import { ADA_TOKEN, buildStubServer } from './stub-deps.js';

// The bounded call mode (ADR 0044) at the wire, with the official client SDK in both eras over
// stub services: a long call from a 2025-era client is held to the bound — a long poll's wait
// below it, a tool whose service takes a CallBudget asked to answer within it, every rpc's
// deadline the bound — while a 2026-07-28 client's call goes to the service as it always did.

const BOUND_MS = 8_000;
const SOURCE = 'Invoice INV-2291 from Acme Tools. Total due: 1,250.00 EUR.';
const SCHEMA = { type: 'object', properties: { invoice: { type: 'string' } }, required: ['invoice'] };

const stub = stubBackends();
const tools = createTools({
  catalogue: toolCatalogue,
  backends: stub.backends,
  logger: createLogger({ service: 'gateway-test', level: 'silent' }),
  modelDeadlineMs: 150_000,
});
const clients = officialClients();
const connected: Partial<Record<Era, Client>> = {};
let app: FastifyInstance;

const lastCall = (tool: string) => stub.calls.filter((c) => c.tool === tool).at(-1)!;

beforeAll(async () => {
  stub.reply('get_plan_status', (request) => ({
    planId: request.planId as string,
    name: 'Bounded',
    status: 'PLAN_STATUS_PLANNING',
    derivedStatus: 'PLAN_STATUS_PLANNING',
    stalled: false,
    progress: 0,
    totalSteps: 1,
    completedSteps: [],
    pendingSteps: [],
  }));
  stub.reply('extract_data', () => ({
    extractionId: '',
    status: 'EXTRACTION_STATUS_RUNNING',
    provider: 'openai',
    jobId: randomUUID(),
    pollTool: 'get_extraction_job',
    instructions: 'Call get_extraction_job.',
  }));
  ({ app } = await buildStubServer({ tools, longCalls: { callBoundMs: BOUND_MS } }));
  const url = await listenOnLoopback(app);
  connected.legacy = await clients.connect(url, ADA_TOKEN, speaking('legacy'));
  connected.modern = await clients.connect(url, ADA_TOKEN, speaking('modern'));
});

afterAll(async () => {
  await clients.closeAll();
  await app?.close();
});

describe('a 2025-era client', () => {
  it('has a long poll held below the bound, and the rpc deadline at the bound', async () => {
    await connected.legacy!.callTool({ name: 'get_plan_status', arguments: { planId: randomUUID(), waitSeconds: 60 } });
    const call = lastCall('get_plan_status');
    expect(call.request.waitSeconds).toBe(6);
    expect(call.deadlineMs).toBe(BOUND_MS);
    // A wait already below the cap is left as asked.
    await connected.legacy!.callTool({ name: 'get_plan_status', arguments: { planId: randomUUID(), waitSeconds: 3 } });
    expect(lastCall('get_plan_status').request.waitSeconds).toBe(3);
  });

  it('asks a model tool to answer within the bound, and passes the running job on with its link', async () => {
    const answer = await connected.legacy!.callTool({
      name: 'extract_data',
      arguments: { sourceText: SOURCE, extractionSchema: SCHEMA },
    });
    const call = lastCall('extract_data');
    expect(call.request.callBudget).toEqual({ answerWithinMs: 6_000 });
    expect(call.deadlineMs).toBe(BOUND_MS);
    const job = answer.structuredContent as { status: string; jobId: string };
    expect(job.status).toBe('running');
    expect(answer.content).toContainEqual(
      expect.objectContaining({ type: 'resource_link', uri: `quarry://extraction-jobs/${job.jobId}` }),
    );
  });
});

describe('a 2026-07-28 client', () => {
  it('is not bounded: the wait and the model deadline are as before, and no budget is sent', async () => {
    await connected.modern!.callTool({ name: 'get_plan_status', arguments: { planId: randomUUID(), waitSeconds: 60 } });
    expect(lastCall('get_plan_status').request.waitSeconds).toBe(60);
    await connected.modern!.callTool({
      name: 'extract_data',
      arguments: { sourceText: SOURCE, extractionSchema: SCHEMA },
    });
    const call = lastCall('extract_data');
    expect(call.request.callBudget).toBeUndefined();
    expect(call.deadlineMs).toBe(150_000);
  });
});

describe('the budget', () => {
  it('keeps a quarter of the bound for the way back, at most 2 s', () => {
    expect(budgetWithin(45_000)).toEqual({ answerWithinMs: 43_000, deadlineMs: 45_000 });
    expect(budgetWithin(2_000)).toEqual({ answerWithinMs: 1_500, deadlineMs: 2_000 });
  });

  it('caps only a long poll’s own field', () => {
    const status = toolCatalogue.find((t) => t.name === 'get_plan_status')!;
    const ping = toolCatalogue.find((t) => t.name === 'ping')!;
    expect(capWait(status, { planId: 'p', waitSeconds: 60 }, 43)).toEqual({ planId: 'p', waitSeconds: 43 });
    expect(capWait(status, { planId: 'p' }, 43)).toEqual({ planId: 'p' });
    expect(capWait(ping, { waitSeconds: 60 }, 43)).toEqual({ waitSeconds: 60 });
  });
});
