import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { startTestGateway } from './harness.js';
import { connectClient } from './official-client.js';

// The plan tool family end to end: a research session over MCP through the whole system
// (gateway, gRPC, plan engine, PostgreSQL), as a model drives it. What each tool does is tested
// at the plan engine's own gRPC boundary (services/plan-engine/test/rpc); this test shows the
// tools reach it and their answers come back as a model reads them.

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let client: Client;

beforeAll(async () => {
  gateway = await startTestGateway();
  client = await connectClient(gateway.url, gateway.token, 'modern');
});
afterAll(async () => {
  await client?.close();
  await gateway?.close();
});

async function call(name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test reads arbitrary tool output
  return { isError: Boolean(result.isError), data: result.structuredContent as Record<string, any> };
}

describe('a research plan through the gateway', () => {
  it('is created, handed out step by step, watched, and completes', async () => {
    const created = await call('create_research_plan', {
      name: 'Smoke',
      researchQuestion: 'Does it work?',
      steps: [
        { stepType: 'search', instructions: 'Find sources' },
        { stepType: 'synthesize', instructions: 'Write it up' },
      ],
      outputFormattingNotes: 'Keep it short.',
    });
    expect(created.isError).toBe(false);
    expect(created.data).toMatchObject({
      name: 'Smoke',
      stepCount: 2,
      firstStep: { stepType: 'search', instructions: 'Find sources' },
    });
    const planId = created.data.planId as string;

    const first = await call('get_next_step', { planId, sessionId: 'smoke-session' });
    expect(first.data).toMatchObject({ status: 'next_step', step: { stepOrder: 1, stepType: 'search' } });
    const submitted = await call('submit_step_result', {
      planId,
      stepId: first.data.step.stepId,
      result: { sources: { count: 3 } },
      confidence: 0.9,
    });
    expect(submitted.data).toEqual({ submitted: true, planStatus: 'executing' });

    const status = await call('get_plan_status', { planId });
    expect(status.data).toMatchObject({ status: 'executing', progress: 50, totalSteps: 2, stalled: false });
    expect(status.data.completedSteps[0]).toMatchObject({
      stepOrder: 1,
      status: 'completed',
      confidence: 0.9,
      startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });

    // A second client long-polls the plan while the last step's result comes in.
    const second = await call('get_next_step', { planId });
    const watcher = await connectClient(gateway.url, gateway.token, 'legacy');
    try {
      const watching = watcher.callTool({ name: 'get_plan_status', arguments: { planId, waitSeconds: 20 } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await call('submit_step_result', {
        planId,
        stepId: second.data.step.stepId,
        result: { report: 'done' },
        outputFormattingNotes: 'Cite sources.',
      });
      expect((await watching).structuredContent).toMatchObject({ status: 'completed', progress: 100 });
    } finally {
      await watcher.close();
    }

    const done = await call('get_next_step', { planId });
    expect(done.data).toEqual({
      status: 'plan_complete',
      outputMediaType: 'conversation',
      planFormattingNotes: 'Keep it short.',
      stepFormattingNotes: [{ stepId: second.data.step.stepId, stepOrder: 2, notes: 'Cite sources.' }],
    });

    const context = await call('get_research_context', { planId, sessionId: 'smoke-session' });
    expect(context.data.plan).toMatchObject({ status: 'completed', progress: 100 });
    expect(context.data.steps[0]).toMatchObject({ result: { sources: { count: 3 } } });
    expect(context.data.recentAuditEvents.map((e: { eventType: string }) => e.eventType)).toContain('session_resumed');

    const listed = await call('list_active_plans', {});
    expect(listed.data).toMatchObject({ activePlans: 0, plans: [] });
  });

  it('is found with list_plans, archived and back, and cancelled for good', async () => {
    const { planId } = (
      await call('create_research_plan', {
        name: 'Library',
        researchQuestion: 'Where did the quokkas go?',
        steps: [{ stepType: 'search', instructions: 'Look around' }],
      })
    ).data;
    expect((await call('list_plans', { query: 'quokkas' })).data.plans).toEqual([
      expect.objectContaining({ planId, status: 'planning', archived: false, createdAt: expect.any(String) }),
    ]);
    expect((await call('archive_plan', { planId })).data).toEqual({ planId, archived: true, status: 'planning' });
    expect((await call('list_plans', { query: 'quokkas' })).data.plans).toEqual([]);
    expect((await call('list_plans', { query: 'quokkas', includeArchived: true })).data.plans).toHaveLength(1);
    expect((await call('unarchive_plan', { planId })).data).toMatchObject({ archived: false });

    const cancelled = await call('cancel_plan', { planId, reason: 'The user stopped the research.' });
    expect(cancelled.data).toEqual({
      planId,
      status: 'cancelled',
      previousStatus: 'planning',
      cancelledAt: expect.any(String),
    });
    expect((await call('cancel_plan', { planId, reason: 'again' })).data).toEqual(cancelled.data);
    expect((await call('get_next_step', { planId })).data).toMatchObject({ status: 'plan_failed' });
    expect((await call('list_plans', { status: 'cancelled', query: 'quokkas' })).data.plans).toHaveLength(1);
    const refused = await call('cancel_plan', { planId: '00000000-0000-4000-8000-000000000000', reason: 'x' });
    expect(refused.data.error).toMatchObject({ code: 'PLAN_NOT_FOUND' });
  });

  it('answers another org’s or an unknown plan id with not-found', async () => {
    const missing = await call('get_plan_status', { planId: '00000000-0000-4000-8000-000000000000' });
    expect(missing.isError).toBe(true);
    expect(missing.data.error).toMatchObject({ code: 'PLAN_NOT_FOUND' });
  });
});
