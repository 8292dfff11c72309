import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  BranchAction,
  expectRefusal,
  ModifyPlanAction,
  MISSING,
  NextStepStatus,
  orders,
  type PlanCaller,
  PlanStatus,
  ReviewDecision,
  type Request,
  stepStatusName,
  StepType,
} from '../support/plan-api.js';
import { startTestPlanEngine, type TestPlanEngine } from '../support/plan-engine.js';
import { auditRows } from '../support/plan-rows.js';

// modify_plan: each of its five actions, the conditions that stay attached to their steps
// through every change, and the refusals (fields the action does not use, states it cannot
// change) that leave the plan as it was.

let engine: TestPlanEngine;
let api: PlanCaller;

beforeAll(async () => {
  engine = await startTestPlanEngine();
  api = engine.newOrg();
});
afterAll(async () => {
  await engine?.close();
});

const { ADD_STEPS, REMOVE_STEP, REORDER_STEPS, UPDATE_STEP_INSTRUCTIONS, FAIL_STEP } = {
  ADD_STEPS: ModifyPlanAction.MODIFY_PLAN_ACTION_ADD_STEPS,
  REMOVE_STEP: ModifyPlanAction.MODIFY_PLAN_ACTION_REMOVE_STEP,
  REORDER_STEPS: ModifyPlanAction.MODIFY_PLAN_ACTION_REORDER_STEPS,
  UPDATE_STEP_INSTRUCTIONS: ModifyPlanAction.MODIFY_PLAN_ACTION_UPDATE_STEP_INSTRUCTIONS,
  FAIL_STEP: ModifyPlanAction.MODIFY_PLAN_ACTION_FAIL_STEP,
};

/** A plan A, B, C whose condition after A (confidence > 0.5) skips to C. */
async function abc() {
  const { planId } = await api.call('createResearchPlan', {
    name: 'Modified',
    researchQuestion: 'Can the plan change under way?',
    steps: [
      { stepType: StepType.STEP_TYPE_SEARCH, instructions: 'A' },
      { stepType: StepType.STEP_TYPE_ANALYZE, instructions: 'B' },
      { stepType: StepType.STEP_TYPE_SYNTHESIZE, instructions: 'C' },
    ],
    branchingConditions: [
      {
        afterStepOrder: 1,
        conditionExpression: 'confidence > 0.5',
        ifTrueAction: BranchAction.BRANCH_ACTION_SKIP_TO,
        actionParams: { targetStepOrder: 3 },
      },
    ],
  });
  const steps = (await api.call('getPlanStatus', { planId })).pendingSteps;
  const id = Object.fromEntries(steps.map((s) => [s.instructions, s.stepId])) as Record<'A' | 'B' | 'C', string>;
  return { planId, id };
}

const shape = (steps: readonly { stepOrder: number; instructions: string; status: number }[]) =>
  steps.map((s) => `${s.stepOrder}:${s.instructions}:${stepStatusName(s.status)}`);

/** Claims the next step, expecting `order`, and submits `result` for it. */
async function work(planId: string, order: number, result: Record<string, unknown>, confidence?: number) {
  const next = await api.call('getNextStep', { planId });
  expect(next).toMatchObject({ status: NextStepStatus.NEXT_STEP_STATUS_NEXT_STEP, step: { stepOrder: order } });
  return api.call('submitStepResult', { planId, stepId: next.step!.stepId, result, confidence });
}

const refusedModify = (request: Request<'modifyPlan'>) => api.refusal('modifyPlan', request);

describe('modify_plan', () => {
  it('runs every action, keeps conditions on their steps through a reorder, and the plan carries on past a failed step', async () => {
    const { planId, id } = await abc();

    // add_steps: after order 0 (first), after order 1, and without a position (appended).
    const added = await api.call('modifyPlan', {
      planId,
      action: ADD_STEPS,
      steps: [
        { stepType: StepType.STEP_TYPE_CUSTOM, instructions: 'X', insertAfterOrder: 0 },
        { stepType: StepType.STEP_TYPE_EXTRACT, instructions: 'Y', insertAfterOrder: 1 },
        { stepType: StepType.STEP_TYPE_CRITIQUE, instructions: 'Z' },
      ],
      modificationRationale: 'More coverage',
      sessionId: 'mod-s',
    });
    expect(added).toMatchObject({ planId, action: ADD_STEPS, planStatus: PlanStatus.PLAN_STATUS_PLANNING });
    expect(shape(added.steps)).toEqual([
      '1:X:pending',
      '2:A:pending',
      '3:Y:pending',
      '4:B:pending',
      '5:C:pending',
      '6:Z:pending',
    ]);
    const newId = Object.fromEntries(added.steps.map((s) => [s.instructions, s.stepId])) as Record<string, string>;

    // update_step_instructions
    const updated = await api.call('modifyPlan', {
      planId,
      action: UPDATE_STEP_INSTRUCTIONS,
      stepId: id.B,
      updatedInstructions: 'B, with costs',
    });
    expect(shape(updated.steps)).toContain('4:B, with costs:pending');

    // remove_step: later orders move up.
    const removed = await api.call('modifyPlan', { planId, action: REMOVE_STEP, stepId: newId.Y! });
    expect(shape(removed.steps)).toEqual([
      '1:X:pending',
      '2:A:pending',
      '3:B, with costs:pending',
      '4:C:pending',
      '5:Z:pending',
    ]);

    // reorder_steps: B first. By order the condition would now follow B and target X; it still
    // follows A and targets C.
    const reordered = await api.call('modifyPlan', {
      planId,
      action: REORDER_STEPS,
      stepOrder: [id.B, id.A, newId.X!, id.C, newId.Z!],
    });
    expect(shape(reordered.steps)).toEqual([
      '1:B, with costs:pending',
      '2:A:pending',
      '3:X:pending',
      '4:C:pending',
      '5:Z:pending',
    ]);
    await work(planId, 1, { done: 'B' }, 0.9);
    expect(orders((await api.call('getPlanStatus', { planId })).pendingSteps)).toEqual([2, 3, 4, 5]);
    await work(planId, 2, { done: 'A' }, 0.9);
    const afterBranch = await api.call('getPlanStatus', { planId });
    expect(afterBranch.completedSteps.map((s) => `${s.instructions}:${stepStatusName(s.status)}`)).toEqual([
      'B, with costs:completed',
      'A:completed',
      'X:skipped',
    ]);

    // fail_step on the step in progress: it fails, the plan goes on and still completes.
    const c = await api.call('getNextStep', { planId });
    expect(c.step).toMatchObject({ stepId: id.C, stepOrder: 4 });
    const failed = await api.call('modifyPlan', { planId, action: FAIL_STEP, stepId: id.C, reason: 'Source offline' });
    expect(failed).toMatchObject({ planStatus: PlanStatus.PLAN_STATUS_EXECUTING });
    expect(shape(failed.steps)).toContain('4:C:failed');
    expect((await work(planId, 5, { done: 'Z' })).planStatus).toBe(PlanStatus.PLAN_STATUS_COMPLETED);
    expect(await api.call('getPlanStatus', { planId })).toMatchObject({
      status: PlanStatus.PLAN_STATUS_COMPLETED,
      progress: 80,
    });

    const audit = await auditRows(engine.database.admin, { planId });
    expect(audit.filter((row) => row.eventType === 'plan_modified').map((row) => row.details.action)).toEqual([
      'created',
      'add_steps',
      'update_step_instructions',
      'remove_step',
      'reorder_steps',
      'fail_step',
    ]);
    expect(audit.find((row) => row.eventType === 'step_failed')).toMatchObject({
      stepId: id.C,
      details: { reason: 'Source offline', via: 'modify_plan' },
    });
  });

  it('fails a pending step too, and the plan skips over it', async () => {
    const { planId, id } = await abc();
    const failed = await api.call('modifyPlan', { planId, action: FAIL_STEP, stepId: id.A });
    expect(shape(failed.steps)).toEqual(['1:A:failed', '2:B:pending', '3:C:pending']);
    expect((await api.call('getNextStep', { planId })).step).toMatchObject({ stepId: id.B, stepOrder: 2 });
  });

  it('refuses fields the action does not use, and missing ones', async () => {
    const { planId, id } = await abc();
    const cases: [Request<'modifyPlan'>, string, RegExp][] = [
      [{ action: REMOVE_STEP }, 'INVALID_ARGUMENT', /`stepId` is required for action remove_step/],
      [{ action: ADD_STEPS }, 'INVALID_ARGUMENT', /`steps` is required for action add_steps/],
      [{ action: REORDER_STEPS }, 'INVALID_ARGUMENT', /`stepOrder` is required for action reorder_steps/],
      [{ action: UPDATE_STEP_INSTRUCTIONS, stepId: id.A }, 'INVALID_ARGUMENT', /`updatedInstructions` is required/],
      [{ action: FAIL_STEP }, 'INVALID_ARGUMENT', /`stepId` is required for action fail_step/],
      [
        { action: REMOVE_STEP, stepId: id.A, reason: 'why' },
        'INVALID_ARGUMENT',
        /`reason` is not used by action remove_step/,
      ],
      [
        { action: ADD_STEPS, steps: [{ stepType: StepType.STEP_TYPE_SEARCH, instructions: 'N' }], stepId: id.A },
        'INVALID_ARGUMENT',
        /`stepId` is not used by action add_steps/,
      ],
      [
        { action: UPDATE_STEP_INSTRUCTIONS, stepId: id.A, updatedInstructions: 'new', stepOrder: [id.A] },
        'INVALID_ARGUMENT',
        /`stepOrder` is not used by action update_step_instructions/,
      ],
      [
        { action: ADD_STEPS, steps: [{ stepType: StepType.STEP_TYPE_SEARCH, instructions: 'N', insertAfterOrder: 4 }] },
        'INVALID_INSERT_POSITION',
        /insertAfterOrder is 4; the plan has 3 steps/,
      ],
      [{ action: ModifyPlanAction.MODIFY_PLAN_ACTION_UNSPECIFIED, stepId: id.A }, 'INVALID_ARGUMENT', /`action`/],
    ];
    for (const [request, code, message] of cases) {
      expectRefusal(await refusedModify({ planId, ...request }), code, message);
    }
    expect(shape((await api.call('getResearchContext', { planId })).steps)).toEqual([
      '1:A:pending',
      '2:B:pending',
      '3:C:pending',
    ]);
  });

  it('refuses a reorder that is not a permutation or that would put a skip_to target before its step', async () => {
    const { planId, id } = await abc();
    const reorder = (stepOrder: string[]) => refusedModify({ planId, action: REORDER_STEPS, stepOrder });
    expectRefusal(await reorder([id.C, id.A]), 'INVALID_REORDER', /must list every step of the plan; missing: /);
    expectRefusal(await reorder([id.C, id.A, MISSING]), 'INVALID_REORDER', /not in this plan/);
    expectRefusal(await reorder([id.A, id.A, id.B]), 'INVALID_REORDER', /stepOrder lists step .* more than once/);
    expectRefusal(await reorder([id.C, id.A, id.B]), 'INVALID_REORDER', /skip_to target/);
    expect(shape((await api.call('getResearchContext', { planId })).steps)).toEqual([
      '1:A:pending',
      '2:B:pending',
      '3:C:pending',
    ]);
  });

  it('removes only pending steps, and drops the conditions that pointed at the removed step', async () => {
    const { planId, id } = await abc();
    await api.call('getNextStep', { planId });
    expectRefusal(
      await refusedModify({ planId, action: REMOVE_STEP, stepId: id.A }),
      'STEP_STATE_CONFLICT',
      /Step 1 is in_progress; only pending steps can be removed/,
    );
    const removed = await api.call('modifyPlan', { planId, action: REMOVE_STEP, stepId: id.C });
    expect(shape(removed.steps)).toEqual(['1:A:in_progress', '2:B:pending']);
    const row = (await auditRows(engine.database.admin, { planId })).find((r) => r.details.action === 'remove_step')!;
    expect(row.details).toMatchObject({ stepOrder: 3, droppedConditionIds: [expect.any(String)] });
    // With the condition gone, a confident A no longer skips anything.
    await api.call('submitStepResult', { planId, stepId: id.A, result: {}, confidence: 0.99 });
    expect((await api.call('getNextStep', { planId })).step!.stepId).toBe(id.B);
  });

  it('refuses to change a plan that is awaiting review or finished', async () => {
    const { planId, id } = await abc();
    await api.call('getNextStep', { planId });
    await api.call('requestUserReview', { planId, stepId: id.A, summary: 'Check' });
    expectRefusal(
      await refusedModify({ planId, action: UPDATE_STEP_INSTRUCTIONS, stepId: id.B, updatedInstructions: 'later' }),
      'PLAN_STATE_CONFLICT',
      /Plan is awaiting_review; modify_plan\(update_step_instructions\) needs a plan that is planning or executing/,
    );
    await api.call('submitUserDecision', { planId, stepId: id.A, decision: ReviewDecision.REVIEW_DECISION_APPROVE });
    await api.call('submitStepResult', { planId, stepId: id.B, result: {} });
    await api.call('submitStepResult', { planId, stepId: id.C, result: {} });
    expectRefusal(
      await refusedModify({
        planId,
        action: ADD_STEPS,
        steps: [{ stepType: StepType.STEP_TYPE_SEARCH, instructions: 'More' }],
      }),
      'PLAN_STATE_CONFLICT',
      /Plan is completed; modify_plan\(add_steps\) needs a plan that is planning or executing/,
    );
    expectRefusal(
      await refusedModify({ planId, action: FAIL_STEP, stepId: id.B }),
      'PLAN_STATE_CONFLICT',
      /Plan is completed/,
    );
  });
});
