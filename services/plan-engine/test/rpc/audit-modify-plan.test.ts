import { beforeAll, describe, expect, it } from '@jest/globals';
import { BranchAction, ModifyPlanAction, PlanStatus, StepType } from '../support/plan-api.js';
import { api, engine, events, tools, useAuditedPlanEngine } from '../support/audit.js';
import { conditionIdsOf, stepIdsOf } from '../support/plan-rows.js';

// plan.plan_audit_log for modify_plan: every action appends exactly the business events it caused
// in the same transaction as the change, and a refusal appends nothing.

useAuditedPlanEngine();

describe('modify_plan', () => {
  let planId: string;
  let steps: string[];

  beforeAll(async () => {
    ({ planId, steps } = await tools.newPlan(3));
    await api.call('getNextStep', { planId });
  });

  it('add_steps writes plan_modified (steps_added) with the new steps and their orders', async () => {
    const { answer, rows } = await tools.auditedOk('modifyPlan', {
      planId,
      action: ModifyPlanAction.MODIFY_PLAN_ACTION_ADD_STEPS,
      steps: [{ stepType: StepType.STEP_TYPE_CRITIQUE, instructions: 'Critique', insertAfterOrder: 1 }],
      modificationRationale: 'needs a critique',
      sessionId: 's-modify',
    });
    const added = answer.steps.find((s) => s.instructions === 'Critique')!;
    expect(added.stepOrder).toBe(2);
    expect(events(rows)).toEqual([
      {
        type: 'plan_modified',
        planId,
        stepId: null,
        sessionId: 's-modify',
        details: {
          action: 'add_steps',
          steps: [{ stepId: added.stepId, stepOrder: 2, stepType: 'critique' }],
          rationale: 'needs a critique',
        },
      },
    ]);
    await tools.expectSameTransaction(rows, 'research_plans', planId);
    steps = await stepIdsOf(engine.database.admin, planId);
  });

  it('reorder_steps writes plan_modified (steps_reordered) with the order before and after', async () => {
    const order = [steps[0]!, steps[3]!, steps[1]!, steps[2]!];
    const { rows } = await tools.auditedOk('modifyPlan', {
      planId,
      action: ModifyPlanAction.MODIFY_PLAN_ACTION_REORDER_STEPS,
      stepOrder: order,
    });
    expect(events(rows)).toEqual([
      {
        type: 'plan_modified',
        planId,
        stepId: null,
        sessionId: null,
        details: { action: 'reorder_steps', previousStepIds: steps, stepIds: order, rationale: null },
      },
    ]);
    await tools.expectSameTransaction(rows, 'research_plans', planId);
    steps = order;
  });

  it('update_step_instructions writes plan_modified (instructions_updated) with the old and new text', async () => {
    const { rows } = await tools.auditedOk('modifyPlan', {
      planId,
      action: ModifyPlanAction.MODIFY_PLAN_ACTION_UPDATE_STEP_INSTRUCTIONS,
      stepId: steps[1],
      updatedInstructions: 'Step 3, sharper',
      modificationRationale: 'clarity',
    });
    expect(events(rows)).toEqual([
      {
        type: 'plan_modified',
        planId,
        stepId: steps[1],
        sessionId: null,
        details: {
          action: 'update_step_instructions',
          previousInstructions: 'Step 3',
          instructions: 'Step 3, sharper',
          rationale: 'clarity',
        },
      },
    ]);
    await tools.expectSameTransaction(rows, 'plan_steps', steps[1]!);
  });

  it('remove_step writes plan_modified (step_removed) about the removed step', async () => {
    const removed = steps[2]!;
    const { rows } = await tools.auditedOk('modifyPlan', {
      planId,
      action: ModifyPlanAction.MODIFY_PLAN_ACTION_REMOVE_STEP,
      stepId: removed,
      modificationRationale: 'not needed',
    });
    expect(events(rows)).toEqual([
      {
        type: 'plan_modified',
        planId,
        stepId: removed,
        sessionId: null,
        details: { action: 'remove_step', stepOrder: 3, droppedConditionIds: [], rationale: 'not needed' },
      },
    ]);
    await tools.expectSameTransaction(rows, 'research_plans', planId);
    steps = await stepIdsOf(engine.database.admin, planId);
  });

  it('remove_step lists the branching conditions that went with the step, and deletes them in the same transaction', async () => {
    const other = await tools.newPlan(3, {
      branchingConditions: [
        {
          afterStepOrder: 2,
          conditionExpression: 'confidence > 0.9',
          ifTrueAction: BranchAction.BRANCH_ACTION_CONTINUE,
        },
        {
          afterStepOrder: 1,
          conditionExpression: 'confidence < 0.2',
          ifTrueAction: BranchAction.BRANCH_ACTION_SKIP_TO,
          actionParams: { targetStepOrder: 2 },
        },
        { afterStepOrder: 1, conditionExpression: 'confidence < 0.1', ifTrueAction: BranchAction.BRANCH_ACTION_FAIL },
      ],
    });
    const [attached, targeting, kept] = await conditionIdsOf(engine.database.admin, other.planId);
    const { rows } = await tools.auditedOk('modifyPlan', {
      planId: other.planId,
      action: ModifyPlanAction.MODIFY_PLAN_ACTION_REMOVE_STEP,
      stepId: other.steps[1],
    });
    expect(events(rows)).toEqual([
      {
        type: 'plan_modified',
        planId: other.planId,
        stepId: other.steps[1],
        sessionId: null,
        details: { action: 'remove_step', stepOrder: 2, droppedConditionIds: [attached, targeting], rationale: null },
      },
    ]);
    expect(await conditionIdsOf(engine.database.admin, other.planId)).toEqual([kept]);
    await tools.expectSameTransaction(rows, 'plan_steps', other.steps[2]!);
  });

  it('fail_step writes plan_modified (step_failed) and step_failed, and the completion it causes', async () => {
    // Left: step 1 in progress, steps 2 and 3 pending.
    await api.call('submitStepResult', { planId, stepId: steps[0], result: { ok: true } });
    await api.call('submitStepResult', { planId, stepId: steps[1], result: { ok: true } });
    const { answer, rows } = await tools.auditedOk('modifyPlan', {
      planId,
      action: ModifyPlanAction.MODIFY_PLAN_ACTION_FAIL_STEP,
      stepId: steps[2],
      reason: 'source gone',
      sessionId: 's-fail-step',
    });
    expect(answer.planStatus).toBe(PlanStatus.PLAN_STATUS_COMPLETED);
    expect(events(rows)).toEqual([
      {
        type: 'plan_modified',
        planId,
        stepId: steps[2],
        sessionId: 's-fail-step',
        details: { action: 'fail_step', reason: 'source gone', rationale: null },
      },
      {
        type: 'step_failed',
        planId,
        stepId: steps[2],
        sessionId: 's-fail-step',
        details: { stepOrder: 3, reason: 'source gone', via: 'modify_plan' },
      },
      {
        type: 'plan_status_changed',
        planId,
        stepId: null,
        sessionId: 's-fail-step',
        details: { from: 'executing', to: 'completed', cause: 'fail_step' },
      },
    ]);
    await tools.expectSameTransaction(rows, 'research_plans', planId);
  });

  it('writes nothing when an action is refused', async () => {
    const other = await tools.newPlan(2);
    await api.call('getNextStep', { planId: other.planId });
    await tools.expectRefusedWithoutTrace(
      'modifyPlan',
      { planId: other.planId, action: ModifyPlanAction.MODIFY_PLAN_ACTION_REMOVE_STEP, stepId: other.steps[0] },
      'STEP_STATE_CONFLICT',
    );
    await tools.expectRefusedWithoutTrace(
      'modifyPlan',
      { planId: other.planId, action: ModifyPlanAction.MODIFY_PLAN_ACTION_REORDER_STEPS, stepOrder: [other.steps[0]!] },
      'INVALID_REORDER',
    );
    await tools.expectRefusedWithoutTrace(
      'modifyPlan',
      {
        planId,
        action: ModifyPlanAction.MODIFY_PLAN_ACTION_ADD_STEPS,
        steps: [{ stepType: StepType.STEP_TYPE_SEARCH, instructions: 'too late' }],
      },
      'PLAN_STATE_CONFLICT',
    );
  });
});
