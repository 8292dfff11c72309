import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import {
  expectRefusal,
  MISSING,
  type PlanCaller,
  PlanStatus,
  StepStatus,
  StepType,
  stepsOf,
} from '../support/plan-api.js';
import { startTestPlanEngine, type TestPlanEngine } from '../support/plan-engine.js';
import { auditRows } from '../support/plan-rows.js';

// submit_step_result (auto-advance, idempotency keys) and get_step_context (the results a step
// builds on, summarized).

let engine: TestPlanEngine;
let api: PlanCaller;
const admin = () => engine.database.admin;
const EXECUTING = PlanStatus.PLAN_STATUS_EXECUTING;

beforeAll(async () => {
  engine = await startTestPlanEngine();
  api = engine.newOrg();
});
afterAll(async () => {
  await engine?.close();
});

async function newPlan(...types: Parameters<typeof stepsOf>) {
  const { planId } = await api.call('createResearchPlan', {
    name: 'Results',
    researchQuestion: 'What came out?',
    steps: stepsOf(...types),
  });
  const steps = (await api.call('getPlanStatus', { planId })).pendingSteps.map((s) => s.stepId);
  return { planId, steps };
}

async function storedStep(stepId: string) {
  const { rows } = await sql<{ status: string; result: unknown; confidence: number | null }>`
    select status, result, confidence from plan.plan_steps where id = ${stepId}
  `.execute(admin());
  return rows[0]!;
}

async function submissions(planId: string) {
  const { rows } = await sql<{ idempotency_key: string; step_id: string }>`
    select idempotency_key, step_id from plan.step_result_submissions where plan_id = ${planId}
  `.execute(admin());
  return rows;
}

describe('submit_step_result', () => {
  it('accepts a pending step: it is started and completed at once, and the plan starts executing', async () => {
    const { planId, steps } = await newPlan('search', 'synthesize');
    expect(
      await api.call('submitStepResult', { planId, stepId: steps[0], result: { sources: 3 }, sessionId: 'auto' }),
    ).toEqual({ submitted: true, planStatus: EXECUTING });
    expect(
      (await auditRows(admin(), { planId }))
        .slice(1)
        .map((r) => [r.eventType, r.details.autoAdvanced ?? r.details.to ?? null]),
    ).toEqual([
      ['step_started', true],
      ['step_completed', null],
      ['plan_status_changed', 'executing'],
    ]);
    const status = await api.call('getPlanStatus', { planId });
    expect(status.completedSteps[0]).toMatchObject({
      stepId: steps[0],
      status: StepStatus.STEP_STATUS_COMPLETED,
      startedAt: expect.any(Date),
      completedAt: expect.any(Date),
    });
  });

  it('refuses a second result for a completed step when no idempotency key is given', async () => {
    const { planId, steps } = await newPlan('search', 'synthesize');
    await api.call('submitStepResult', { planId, stepId: steps[0], result: { first: true } });
    expectRefusal(
      await api.refusal('submitStepResult', { planId, stepId: steps[0], result: { second: true } }),
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
    const first = await api.call('submitStepResult', args);
    expect(first).toEqual({ submitted: true, planStatus: EXECUTING });
    const auditAfterFirst = await auditRows(admin(), { planId });

    // The retry carries a different body (a client rebuilding its request): still the first answer.
    const retry = await api.call('submitStepResult', { ...args, result: { sources: { count: 99 } }, confidence: 0.1 });
    expect(retry).toEqual(first);
    expect(await auditRows(admin(), { planId })).toEqual(auditAfterFirst);
    expect(await storedStep(steps[0]!)).toMatchObject({
      status: 'completed',
      result: { sources: { count: 4 } },
      confidence: 0.7,
    });
    expect(await submissions(planId)).toEqual([{ idempotency_key: 'submit-1', step_id: steps[0] }]);

    // Even after the plan moved on (completed), the retry replays the answer it first got.
    const last = { planId, stepId: steps[1], result: { done: true }, idempotencyKey: 'submit-2' };
    await api.call('submitStepResult', last);
    expect(await api.call('submitStepResult', args)).toEqual({ submitted: true, planStatus: EXECUTING });
    expect(await api.call('submitStepResult', last)).toEqual({
      submitted: true,
      planStatus: PlanStatus.PLAN_STATUS_COMPLETED,
    });
    expect((await auditRows(admin(), { planId })).filter((r) => r.eventType === 'step_completed')).toHaveLength(2);
  });

  it('writes one set of rows when the same keyed submission arrives twice at once', async () => {
    const { planId, steps } = await newPlan('search', 'analyze');
    const args = { planId, stepId: steps[0], result: { n: 1 }, idempotencyKey: 'twice' };
    const [a, b] = await Promise.all([api.call('submitStepResult', args), api.call('submitStepResult', args)]);
    expect(a).toEqual({ submitted: true, planStatus: EXECUTING });
    expect(b).toEqual(a);
    const events = (await auditRows(admin(), { planId })).map((r) => r.eventType);
    expect(events).toEqual(['plan_modified', 'step_started', 'step_completed', 'plan_status_changed']);
    expect(await submissions(planId)).toHaveLength(1);
  });

  it('refuses the same key for another step of the plan, and accepts it on another plan', async () => {
    const { planId, steps } = await newPlan('search', 'analyze');
    await api.call('submitStepResult', { planId, stepId: steps[0], result: { n: 1 }, idempotencyKey: 'shared' });
    expectRefusal(
      await api.refusal('submitStepResult', { planId, stepId: steps[1], result: { n: 2 }, idempotencyKey: 'shared' }),
      'INVALID_ARGUMENT',
      /`idempotencyKey` was already used for step/,
      new RegExp(steps[0]!),
    );
    expect((await storedStep(steps[1]!)).status).toBe('pending');

    const other = await newPlan('search');
    const answer = await api.call('submitStepResult', {
      planId: other.planId,
      stepId: other.steps[0],
      result: { n: 3 },
      idempotencyKey: 'shared',
    });
    expect(answer.planStatus).toBe(PlanStatus.PLAN_STATUS_COMPLETED);
  });
});

describe('the execution report of submit_step_result', () => {
  it('is an object kept whole with the step, and one over 64 KB is refused without a trace', async () => {
    const { planId, steps } = await newPlan('search', 'analyze');
    const report = { thinking: 'Started broad.', webSearches: [{ query: 'sodium-ion cost' }], toolCalls: [] };
    await api.call('submitStepResult', { planId, stepId: steps[0], result: { n: 1 }, stepExecutionReport: report });
    const context = await api.call('getResearchContext', { planId });
    expect(context.steps[0]).toMatchObject({ stepExecutionReport: report, resultSummary: expect.any(String) });

    const before = await auditRows(admin(), { planId });
    const huge = { thinking: 'x'.repeat(64 * 1024) };
    expectRefusal(
      await api.refusal('submitStepResult', { planId, stepId: steps[1], result: {}, stepExecutionReport: huge }),
      'INVALID_ARGUMENT',
      /`stepExecutionReport`/,
    );
    expect(await auditRows(admin(), { planId })).toEqual(before);
    expect((await api.call('getPlanStatus', { planId })).pendingSteps.map((s) => s.stepId)).toEqual([steps[1]]);
  });
});

describe('get_step_context', () => {
  const longResult = { findings: Array.from({ length: 200 }, (_, i) => `finding number ${i} about storage costs`) };
  let plan: { planId: string; steps: string[] };

  beforeAll(async () => {
    plan = await newPlan('search', 'extract', 'analyze', 'synthesize');
    const [one, two] = plan.steps;
    await api.call('submitStepResult', {
      planId: plan.planId,
      stepId: one,
      result: { summary: 'Twelve sources on LFP.', sources: { count: 12 } },
      confidence: 0.9,
    });
    await api.call('submitStepResult', { planId: plan.planId, stepId: two, result: longResult, confidence: 0.6 });
    await api.call('getNextStep', { planId: plan.planId });
  });

  it('gives the step and every completed earlier step with a bounded summary of its result', async () => {
    const [one, two, three, four] = plan.steps;
    const context = await api.call('getStepContext', { planId: plan.planId, stepId: four });
    expect(context.currentStep).toMatchObject({
      stepId: four,
      stepOrder: 4,
      stepType: StepType.STEP_TYPE_SYNTHESIZE,
      status: StepStatus.STEP_STATUS_PENDING,
      instructions: 'Step 4: synthesize',
    });
    // Step 3 is in progress, so it has nothing to contribute yet.
    expect(context.priorSteps.map((s) => s.stepId)).toEqual([one, two]);
    expect(context.priorSteps[0]).toEqual({
      stepId: one,
      stepOrder: 1,
      stepType: StepType.STEP_TYPE_SEARCH,
      resultSummary: 'Twelve sources on LFP.',
      confidence: 0.9,
    });
    const summary = context.priorSteps[1]!.resultSummary;
    expect(JSON.stringify(longResult).length).toBeGreaterThan(5000);
    expect(summary.length).toBeLessThanOrEqual(601);
    expect(summary.startsWith('{"findings":["finding number 0')).toBe(true);
    expect(summary.endsWith('…')).toBe(true);
    expect(context.artifacts).toEqual([]);

    const atThree = await api.call('getStepContext', { planId: plan.planId, stepId: three });
    expect(atThree.currentStep).toMatchObject({ stepOrder: 3, status: StepStatus.STEP_STATUS_IN_PROGRESS });
    expect(atThree.priorSteps.map((s) => s.stepOrder)).toEqual([1, 2]);
    expect((await api.call('getStepContext', { planId: plan.planId, stepId: one })).priorSteps).toEqual([]);
  });

  it('gives exactly the prior steps asked for', async () => {
    const [one, two, , four] = plan.steps;
    const context = await api.call('getStepContext', { planId: plan.planId, stepId: four, priorStepIds: [two!] });
    expect(context.priorSteps).toEqual([expect.objectContaining({ stepId: two, stepOrder: 2, confidence: 0.6 })]);
    // In plan order, whatever order they were asked in.
    const both = await api.call('getStepContext', { planId: plan.planId, stepId: four, priorStepIds: [two!, one!] });
    expect(both.priorSteps.map((s) => s.stepOrder)).toEqual([1, 2]);
  });

  it('answers an unknown step, or a step of another plan, with not-found', async () => {
    expectRefusal(
      await api.refusal('getStepContext', { planId: plan.planId, stepId: MISSING }),
      'STEP_NOT_FOUND',
      new RegExp(MISSING),
    );
    expectRefusal(
      await api.refusal('getStepContext', { planId: plan.planId, stepId: plan.steps[3], priorStepIds: [MISSING] }),
      'STEP_NOT_FOUND',
      new RegExp(MISSING),
    );
    const other = await newPlan('search');
    expectRefusal(
      await api.refusal('getStepContext', { planId: plan.planId, stepId: other.steps[0] }),
      'STEP_NOT_FOUND',
    );
    expectRefusal(await api.refusal('getStepContext', { planId: MISSING, stepId: plan.steps[0] }), 'PLAN_NOT_FOUND');
  });
});
