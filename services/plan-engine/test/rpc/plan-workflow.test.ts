import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  BranchAction,
  expectRefusal,
  NextStepStatus,
  OutputMediaType,
  orders,
  type PlanCaller,
  PlanStatus,
  type Request,
  StepStatus,
  StepType,
  stepsOf,
} from '../support/plan-api.js';
import { startTestPlanEngine, type TestPlanEngine } from '../support/plan-engine.js';
import { auditRows } from '../support/plan-rows.js';

// A plan's lifecycle over PlanService: steps handed out one by one, results submitted, and the
// branching conditions (skip_to, fail, continue) deciding what comes next.

let engine: TestPlanEngine;
let api: PlanCaller;

beforeAll(async () => {
  engine = await startTestPlanEngine();
  api = engine.newOrg();
});
afterAll(async () => {
  await engine?.close();
});

const audit = (planId: string) => auditRows(engine.database.admin, { planId });

/** Claims the next step, expecting `order`, and submits `result` for it. */
async function work(
  planId: string,
  order: number,
  result: Record<string, unknown>,
  extra: Partial<Request<'submitStepResult'>> = {},
) {
  const next = await api.call('getNextStep', { planId });
  expect(next).toMatchObject({ status: NextStepStatus.NEXT_STEP_STATUS_NEXT_STEP, step: { stepOrder: order } });
  const submitted = await api.call('submitStepResult', { planId, stepId: next.step!.stepId, result, ...extra });
  return { stepId: next.step!.stepId, planStatus: submitted.planStatus };
}

describe('a six-step plan with a skip_to branch', () => {
  const sixSteps: Request<'createResearchPlan'> = {
    name: 'Battery chemistries',
    researchQuestion: 'Which battery chemistry suits grid storage best?',
    steps: stepsOf('search', 'search', 'extract', 'analyze', 'synthesize', 'critique'),
    branchingConditions: [
      {
        afterStepOrder: 2,
        conditionExpression: 'result.sources.count >= 5 && confidence > 0.5',
        ifTrueAction: BranchAction.BRANCH_ACTION_SKIP_TO,
        actionParams: { targetStepOrder: 5 },
      },
    ],
    sessionId: 'six',
    outputFormattingNotes: 'Lead with a comparison table.',
  };

  it('skips steps 3 and 4 when step 2 finds enough sources with confidence, counts them as progress, and completes', async () => {
    const created = await api.call('createResearchPlan', sixSteps);
    expect(created).toMatchObject({
      name: 'Battery chemistries',
      researchQuestion: 'Which battery chemistry suits grid storage best?',
      stepCount: 6,
      firstStep: { stepType: StepType.STEP_TYPE_SEARCH, instructions: 'Step 1: search' },
    });
    const { planId } = created;

    const fresh = await api.call('getPlanStatus', { planId });
    expect(fresh).toMatchObject({
      planId,
      status: PlanStatus.PLAN_STATUS_PLANNING,
      derivedStatus: PlanStatus.PLAN_STATUS_PLANNING,
      progress: 0,
      totalSteps: 6,
      stalled: false,
      completedSteps: [],
    });
    expect(orders(fresh.pendingSteps)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(fresh.currentStep).toBeUndefined();

    const first = await api.call('getNextStep', { planId, sessionId: 'six' });
    expect(first).toMatchObject({
      status: NextStepStatus.NEXT_STEP_STATUS_NEXT_STEP,
      step: {
        stepOrder: 1,
        stepType: StepType.STEP_TYPE_SEARCH,
        instructions: 'Step 1: search',
        stepId: created.firstStep!.stepId,
      },
    });
    const working = await api.call('getPlanStatus', { planId });
    expect(working).toMatchObject({
      status: PlanStatus.PLAN_STATUS_EXECUTING,
      currentStep: { stepOrder: 1, status: StepStatus.STEP_STATUS_IN_PROGRESS },
    });
    expect(
      await api.call('submitStepResult', {
        planId,
        stepId: first.step!.stepId,
        result: { sources: { count: 2 } },
        confidence: 0.9,
      }),
    ).toEqual({ submitted: true, planStatus: PlanStatus.PLAN_STATUS_EXECUTING });

    const second = await work(planId, 2, { sources: { count: 7 } }, { confidence: 0.8 });
    expect(second.planStatus).toBe(PlanStatus.PLAN_STATUS_EXECUTING);

    const branched = await api.call('getPlanStatus', { planId });
    expect(branched.completedSteps.map((s) => [s.stepOrder, s.status])).toEqual([
      [1, StepStatus.STEP_STATUS_COMPLETED],
      [2, StepStatus.STEP_STATUS_COMPLETED],
      [3, StepStatus.STEP_STATUS_SKIPPED],
      [4, StepStatus.STEP_STATUS_SKIPPED],
    ]);
    expect(orders(branched.pendingSteps)).toEqual([5, 6]);
    expect(branched.progress).toBeCloseTo((4 / 6) * 100, 10);
    expect(branched.currentStep).toBeUndefined();
    const skippedStep = branched.completedSteps[2]!.stepId;
    expectRefusal(
      await api.refusal('submitStepResult', { planId, stepId: skippedStep, result: {} }),
      'STEP_STATE_CONFLICT',
      /Step 3 is skipped/,
    );

    await work(planId, 5, { report: 'LFP wins on cost' }, { outputFormattingNotes: 'Cite prices per kWh.' });
    expect((await work(planId, 6, { critique: 'sound' })).planStatus).toBe(PlanStatus.PLAN_STATUS_COMPLETED);

    expect(await api.call('getNextStep', { planId })).toEqual({
      status: NextStepStatus.NEXT_STEP_STATUS_PLAN_COMPLETE,
      outputMediaType: OutputMediaType.OUTPUT_MEDIA_TYPE_CONVERSATION,
      planFormattingNotes: 'Lead with a comparison table.',
      stepFormattingNotes: [{ stepId: expect.any(String), stepOrder: 5, notes: 'Cite prices per kWh.' }],
    });
    expect(await api.call('getPlanStatus', { planId })).toMatchObject({
      status: PlanStatus.PLAN_STATUS_COMPLETED,
      derivedStatus: PlanStatus.PLAN_STATUS_COMPLETED,
      progress: 100,
      pendingSteps: [],
    });

    // The branch is on record: step 2's step_completed names the condition and the skipped steps.
    const completion = (await audit(planId)).find(
      (row) => row.eventType === 'step_completed' && row.stepId === second.stepId,
    )!;
    const skipped = branched.completedSteps
      .filter((s) => s.status === StepStatus.STEP_STATUS_SKIPPED)
      .map((s) => s.stepId);
    expect(completion.details).toMatchObject({
      stepOrder: 2,
      confidence: 0.8,
      via: 'result',
      branch: { action: 'skip_to', skippedStepIds: skipped },
    });
  });

  it('does not branch when only half of the && holds', async () => {
    const { planId } = await api.call('createResearchPlan', sixSteps);
    await work(planId, 1, { sources: { count: 1 } });
    await work(planId, 2, { sources: { count: 9 } }, { confidence: 0.4 });
    const status = await api.call('getPlanStatus', { planId });
    expect(orders(status.pendingSteps)).toEqual([3, 4, 5, 6]);
    expect(status.progress).toBeCloseTo((2 / 6) * 100, 10);
  });
});

describe('get_next_step', () => {
  it('hands each step out once, and says so when the remaining steps are in progress elsewhere', async () => {
    const { planId } = await api.call('createResearchPlan', {
      name: 'Claims',
      researchQuestion: 'Who works on what?',
      steps: stepsOf('search', 'extract'),
    });
    const first = await api.call('getNextStep', { planId, sessionId: 'agent-1' });
    const second = await api.call('getNextStep', { planId, sessionId: 'agent-2' });
    expect([first.step!.stepOrder, second.step!.stepOrder]).toEqual([1, 2]);
    expect(await api.call('getNextStep', { planId, sessionId: 'agent-3' })).toEqual({
      status: NextStepStatus.NEXT_STEP_STATUS_NO_PENDING_STEPS,
      outputMediaType: OutputMediaType.OUTPUT_MEDIA_TYPE_UNSPECIFIED,
      stepFormattingNotes: [],
    });
    const started = (await audit(planId)).filter((row) => row.eventType === 'step_started');
    expect(started.map((row) => [row.details.stepOrder, row.sessionId, row.details.autoAdvanced])).toEqual([
      [1, 'agent-1', false],
      [2, 'agent-2', false],
    ]);
  });
});

describe('branching actions fail and continue', () => {
  it('fail: the plan fails, nothing more is handed out and no result is accepted', async () => {
    const { planId } = await api.call('createResearchPlan', {
      name: 'Fragile',
      researchQuestion: 'Is the source base strong enough?',
      steps: stepsOf('search', 'analyze', 'synthesize'),
      branchingConditions: [
        { afterStepOrder: 1, conditionExpression: 'confidence < 0.3', ifTrueAction: BranchAction.BRANCH_ACTION_FAIL },
      ],
    });
    const first = await work(planId, 1, { sources: { count: 0 } }, { confidence: 0.2 });
    expect(first.planStatus).toBe(PlanStatus.PLAN_STATUS_FAILED);

    expect(await api.call('getNextStep', { planId })).toMatchObject({
      status: NextStepStatus.NEXT_STEP_STATUS_PLAN_FAILED,
    });
    const status = await api.call('getPlanStatus', { planId });
    expect(status).toMatchObject({ status: PlanStatus.PLAN_STATUS_FAILED, progress: (1 / 3) * 100 });
    expect(orders(status.pendingSteps)).toEqual([2, 3]);

    const later = status.pendingSteps[0]!.stepId;
    expectRefusal(
      await api.refusal('submitStepResult', { planId, stepId: later, result: { late: true } }),
      'PLAN_STATE_CONFLICT',
      /Plan is failed/,
    );

    const statusChange = (await audit(planId)).filter((row) => row.eventType === 'plan_status_changed').at(-1)!;
    expect(statusChange.details).toMatchObject({
      from: 'executing',
      to: 'failed',
      cause: 'branch_condition',
      conditionId: expect.any(String),
    });
  });

  it('continue: the first condition that holds decides, so a later skip_to is not taken', async () => {
    const clearCase = (name: string): Request<'createResearchPlan'> => ({
      name,
      researchQuestion: 'Is the answer already clear?',
      steps: stepsOf('search', 'analyze', 'critique', 'synthesize'),
      branchingConditions: [
        {
          afterStepOrder: 1,
          conditionExpression: "result.verdict == 'clear'",
          ifTrueAction: BranchAction.BRANCH_ACTION_CONTINUE,
        },
        {
          afterStepOrder: 1,
          conditionExpression: 'confidence >= 0.5',
          ifTrueAction: BranchAction.BRANCH_ACTION_SKIP_TO,
          actionParams: { targetStepOrder: 4 },
        },
      ],
    });
    const { planId } = await api.call('createResearchPlan', clearCase('Clear case'));
    expect((await work(planId, 1, { verdict: 'clear' }, { confidence: 0.9 })).planStatus).toBe(
      PlanStatus.PLAN_STATUS_EXECUTING,
    );
    const status = await api.call('getPlanStatus', { planId });
    expect(orders(status.pendingSteps)).toEqual([2, 3, 4]);
    expect((await api.call('getNextStep', { planId })).step!.stepOrder).toBe(2);

    // Without the continue, the skip_to of the same plan shape is taken.
    const other = (await api.call('createResearchPlan', clearCase('Unclear case'))).planId;
    await work(other, 1, { verdict: 'murky' }, { confidence: 0.9 });
    expect((await api.call('getNextStep', { planId: other })).step!.stepOrder).toBe(4);
  });
});
