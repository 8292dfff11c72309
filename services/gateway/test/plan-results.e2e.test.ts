import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { type Kysely, sql } from 'kysely';
import { connectClient, startTestGateway } from './harness.js';
import { auditRows, type CallTool, expectToolError, stepsOf, toolsOf } from './plan-workflow-helpers.js';

// Issue 3: submit_step_result (auto-advance, idempotency keys) and get_step_context, end to end
// through the gateway.

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let admin: Kysely<unknown>;
let client: Client;
let call: CallTool;
let ok: CallTool;

beforeAll(async () => {
  gateway = await startTestGateway();
  admin = gateway.database.admin as Kysely<unknown>;
  client = await connectClient(gateway.url, gateway.token, 'modern');
  ({ call, ok } = toolsOf(client));
});
afterAll(async () => {
  await client?.close();
  await gateway?.close();
});

async function newPlan(...types: string[]) {
  const { planId } = (
    await ok('create_research_plan', { name: 'Results', researchQuestion: 'What came out?', steps: stepsOf(...types) })
  ).data;
  const steps = (await ok('get_plan_status', { planId })).data.pendingSteps.map(
    (s: { stepId: string }) => s.stepId,
  ) as string[];
  return { planId, steps };
}

async function storedStep(stepId: string) {
  const { rows } = await sql<{ status: string; result: unknown; confidence: number | null }>`
    select status, result, confidence from plan.plan_steps where id = ${stepId}
  `.execute(admin);
  return rows[0]!;
}

async function submissions(planId: string) {
  const { rows } = await sql<{ idempotency_key: string; step_id: string }>`
    select idempotency_key, step_id from plan.step_result_submissions where plan_id = ${planId}
  `.execute(admin);
  return rows;
}

describe('submit_step_result', () => {
  it('accepts a pending step: it is started and completed at once, and the plan starts executing', async () => {
    const { planId, steps } = await newPlan('search', 'synthesize');
    expect(
      (await ok('submit_step_result', { planId, stepId: steps[0], result: { sources: 3 }, sessionId: 'auto' })).data,
    ).toEqual({
      submitted: true,
      planStatus: 'executing',
    });
    expect(
      (await auditRows(admin, planId))
        .slice(1)
        .map((r) => [r.event_type, r.details.autoAdvanced ?? r.details.to ?? null]),
    ).toEqual([
      ['step_started', true],
      ['step_completed', null],
      ['plan_status_changed', 'executing'],
    ]);
    const status = await ok('get_plan_status', { planId });
    expect(status.data.completedSteps[0]).toMatchObject({
      stepId: steps[0],
      status: 'completed',
      startedAt: expect.any(String),
      completedAt: expect.any(String),
    });
  });

  it('refuses a second result for a completed step when no idempotency key is given', async () => {
    const { planId, steps } = await newPlan('search', 'synthesize');
    await ok('submit_step_result', { planId, stepId: steps[0], result: { first: true } });
    expectToolError(
      await call('submit_step_result', { planId, stepId: steps[0], result: { second: true } }),
      'STEP_STATE_CONFLICT',
      /Step 1 is completed; only pending or in_progress steps accept a result/,
    );
    expect((await storedStep(steps[0]!)).result).toEqual({ first: true });
  });

  it('answers a retry with the same idempotencyKey with the first answer and changes nothing', async () => {
    const { planId, steps } = await newPlan('search', 'analyze');
    const args = {
      planId,
      stepId: steps[0],
      result: { sources: { count: 4 } },
      confidence: 0.7,
      idempotencyKey: 'submit-1',
    };
    const first = await ok('submit_step_result', args);
    expect(first.data).toEqual({ submitted: true, planStatus: 'executing' });
    const auditAfterFirst = await auditRows(admin, planId);

    // The retry carries a different body (a client rebuilding its request): still the first answer.
    const retry = await ok('submit_step_result', { ...args, result: { sources: { count: 99 } }, confidence: 0.1 });
    expect(retry.data).toEqual(first.data);
    expect(await auditRows(admin, planId)).toEqual(auditAfterFirst);
    expect(await storedStep(steps[0]!)).toMatchObject({
      status: 'completed',
      result: { sources: { count: 4 } },
      confidence: 0.7,
    });
    expect(await submissions(planId)).toEqual([{ idempotency_key: 'submit-1', step_id: steps[0] }]);

    // Even after the plan moved on (completed), the retry replays the answer it first got.
    await ok('submit_step_result', { planId, stepId: steps[1], result: { done: true }, idempotencyKey: 'submit-2' });
    expect((await ok('submit_step_result', args)).data).toEqual({ submitted: true, planStatus: 'executing' });
    expect(
      (await ok('submit_step_result', { planId, stepId: steps[1], result: { done: true }, idempotencyKey: 'submit-2' }))
        .data,
    ).toEqual({
      submitted: true,
      planStatus: 'completed',
    });
    expect((await auditRows(admin, planId)).filter((r) => r.event_type === 'step_completed')).toHaveLength(2);
  });

  it('writes one set of rows when the same keyed submission arrives twice at once', async () => {
    const { planId, steps } = await newPlan('search', 'analyze');
    const args = { planId, stepId: steps[0], result: { n: 1 }, idempotencyKey: 'twice' };
    const [a, b] = await Promise.all([ok('submit_step_result', args), ok('submit_step_result', args)]);
    expect(a.data).toEqual({ submitted: true, planStatus: 'executing' });
    expect(b.data).toEqual(a.data);
    const events = (await auditRows(admin, planId)).map((r) => r.event_type);
    expect(events).toEqual(['plan_modified', 'step_started', 'step_completed', 'plan_status_changed']);
    expect(await submissions(planId)).toHaveLength(1);
  });

  it('refuses the same key for another step of the plan, and accepts it on another plan', async () => {
    const { planId, steps } = await newPlan('search', 'analyze');
    await ok('submit_step_result', { planId, stepId: steps[0], result: { n: 1 }, idempotencyKey: 'shared' });
    const refused = await call('submit_step_result', {
      planId,
      stepId: steps[1],
      result: { n: 2 },
      idempotencyKey: 'shared',
    });
    expectToolError(refused, 'INVALID_ARGUMENT', /`idempotencyKey` was already used for step/, new RegExp(steps[0]!));
    expect((await storedStep(steps[1]!)).status).toBe('pending');

    const other = await newPlan('search');
    expect(
      (
        await ok('submit_step_result', {
          planId: other.planId,
          stepId: other.steps[0],
          result: { n: 3 },
          idempotencyKey: 'shared',
        })
      ).data.planStatus,
    ).toBe('completed');
  });
});

describe('get_step_context', () => {
  const longResult = { findings: Array.from({ length: 200 }, (_, i) => `finding number ${i} about storage costs`) };
  let plan: { planId: string; steps: string[] };

  beforeAll(async () => {
    plan = await newPlan('search', 'extract', 'analyze', 'synthesize');
    const [one, two] = plan.steps;
    await ok('submit_step_result', {
      planId: plan.planId,
      stepId: one,
      result: { summary: 'Twelve sources on LFP.', sources: { count: 12 } },
      confidence: 0.9,
    });
    await ok('submit_step_result', { planId: plan.planId, stepId: two, result: longResult, confidence: 0.6 });
    await ok('get_next_step', { planId: plan.planId });
  });

  it('gives the step and every completed earlier step with a bounded summary of its result', async () => {
    const [one, two, three, four] = plan.steps;
    const context = await ok('get_step_context', { planId: plan.planId, stepId: four });
    expect(context.data.currentStep).toMatchObject({
      stepId: four,
      stepOrder: 4,
      stepType: 'synthesize',
      status: 'pending',
      instructions: 'Step 4: synthesize',
    });
    // Step 3 is in progress, so it has nothing to contribute yet.
    expect(context.data.priorSteps.map((s: { stepId: string }) => s.stepId)).toEqual([one, two]);
    expect(context.data.priorSteps[0]).toEqual({
      stepId: one,
      stepOrder: 1,
      stepType: 'search',
      resultSummary: 'Twelve sources on LFP.',
      confidence: 0.9,
    });
    const summary = context.data.priorSteps[1].resultSummary as string;
    expect(JSON.stringify(longResult).length).toBeGreaterThan(5000);
    expect(summary.length).toBeLessThanOrEqual(601);
    expect(summary.startsWith('{"findings":["finding number 0')).toBe(true);
    expect(summary.endsWith('…')).toBe(true);
    expect(context.data.artifacts).toEqual([]);

    const atThree = await ok('get_step_context', { planId: plan.planId, stepId: three });
    expect(atThree.data.currentStep).toMatchObject({ stepOrder: 3, status: 'in_progress' });
    expect(atThree.data.priorSteps.map((s: { stepOrder: number }) => s.stepOrder)).toEqual([1, 2]);
    expect((await ok('get_step_context', { planId: plan.planId, stepId: one })).data.priorSteps).toEqual([]);
  });

  it('gives exactly the prior steps asked for', async () => {
    const [one, two, , four] = plan.steps;
    const context = await ok('get_step_context', { planId: plan.planId, stepId: four, priorStepIds: [two] });
    expect(context.data.priorSteps).toEqual([expect.objectContaining({ stepId: two, stepOrder: 2, confidence: 0.6 })]);
    // In plan order, whatever order they were asked in.
    const both = await ok('get_step_context', { planId: plan.planId, stepId: four, priorStepIds: [two, one] });
    expect(both.data.priorSteps.map((s: { stepOrder: number }) => s.stepOrder)).toEqual([1, 2]);
  });

  it('answers an unknown step, or a step of another plan, with not-found', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    expectToolError(
      await call('get_step_context', { planId: plan.planId, stepId: missing }),
      'STEP_NOT_FOUND',
      new RegExp(missing),
    );
    expectToolError(
      await call('get_step_context', { planId: plan.planId, stepId: plan.steps[3], priorStepIds: [missing] }),
      'STEP_NOT_FOUND',
      new RegExp(missing),
    );
    const other = await newPlan('search');
    expectToolError(await call('get_step_context', { planId: plan.planId, stepId: other.steps[0] }), 'STEP_NOT_FOUND');
    expectToolError(await call('get_step_context', { planId: missing, stepId: plan.steps[0] }), 'PLAN_NOT_FOUND');
  });
});
