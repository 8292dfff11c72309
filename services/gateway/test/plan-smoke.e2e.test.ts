import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { connectClient, startTestGateway } from './harness.js';

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
  it('is created, handed out step by step, and completes', async () => {
    const created = await call('create_research_plan', {
      name: 'Smoke',
      researchQuestion: 'Does it work?',
      steps: [
        { stepType: 'search', instructions: 'Find sources' },
        { stepType: 'synthesize', instructions: 'Write it up' },
      ],
    });
    expect(created.isError).toBe(false);
    expect(created.data).toMatchObject({
      name: 'Smoke',
      stepCount: 2,
      firstStep: { stepType: 'search', instructions: 'Find sources' },
    });
    const planId = created.data.planId as string;

    const first = await call('get_next_step', { planId });
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

    const second = await call('get_next_step', { planId });
    await call('submit_step_result', { planId, stepId: second.data.step.stepId, result: { report: 'done' } });
    const done = await call('get_next_step', { planId });
    expect(done.data).toMatchObject({ status: 'plan_complete', outputMediaType: 'conversation' });

    const context = await call('get_research_context', { planId, sessionId: 'smoke-session' });
    expect(context.data.plan).toMatchObject({ status: 'completed', progress: 100 });
    expect(context.data.recentAuditEvents.map((e: { eventType: string }) => e.eventType)).toContain('session_resumed');
  });

  it('answers another org’s or an unknown plan id with not-found', async () => {
    const missing = await call('get_plan_status', { planId: '00000000-0000-4000-8000-000000000000' });
    expect(missing.isError).toBe(true);
    expect(missing.data.error).toMatchObject({ code: 'PLAN_NOT_FOUND' });
  });
});
