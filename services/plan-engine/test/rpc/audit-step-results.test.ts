import { describe, expect, it } from '@jest/globals';
import { BranchAction, PlanStatus } from '../support/plan-api.js';
import { api, engine, events, tools, useAuditedPlanEngine } from '../support/audit.js';
import { conditionIdsOf, planSnapshot } from '../support/plan-rows.js';

// plan.plan_audit_log, as an auditor relies on it, for submitting step results: every result
// appends exactly the business events it caused (the step's start and completion, the branch it
// took, the plan's completion) in the same transaction as the change itself, and an idempotent
// retry or a refused result appends nothing.

useAuditedPlanEngine();

const snapshot = () => planSnapshot(engine.database.admin);

describe('submit_step_result', () => {
  it('writes step_completed for an in_progress step, nothing for an idempotent retry or a refused result', async () => {
    const { planId, steps } = await tools.newPlan(2);
    await api.call('getNextStep', { planId });
    const args = {
      planId,
      stepId: steps[0],
      result: { summary: 'done' },
      confidence: 0.9,
      sessionId: 's-submit',
      idempotencyKey: 'k-1',
    };
    const { answer, rows } = await tools.auditedOk('submitStepResult', args);
    expect(answer).toEqual({ submitted: true, planStatus: PlanStatus.PLAN_STATUS_EXECUTING });
    expect(events(rows)).toEqual([
      {
        type: 'step_completed',
        planId,
        stepId: steps[0],
        sessionId: 's-submit',
        details: { stepOrder: 1, confidence: 0.9, via: 'result', branch: null },
      },
    ]);
    await tools.expectSameTransaction(rows, 'plan_steps', steps[0]!);

    const before = await snapshot();
    expect(await api.call('submitStepResult', args)).toEqual({
      submitted: true,
      planStatus: PlanStatus.PLAN_STATUS_EXECUTING,
    });
    expect(await snapshot()).toEqual(before);

    await tools.expectRefusedWithoutTrace(
      'submitStepResult',
      { planId, stepId: steps[0], result: { again: true } },
      'STEP_STATE_CONFLICT',
    );
    await tools.expectRefusedWithoutTrace(
      'submitStepResult',
      { planId, stepId: steps[1], result: { x: 1 }, confidence: 1.5 },
      'INVALID_ARGUMENT',
    );
    await tools.expectRefusedWithoutTrace(
      'submitStepResult',
      { planId, stepId: steps[1], result: { x: 1 }, idempotencyKey: 'k-1' },
      'INVALID_ARGUMENT',
    );
  });

  it('writes step_started (auto-advanced) before step_completed for a pending step, and the completion of the plan', async () => {
    const { planId, steps } = await tools.newPlan(1);
    const { answer, rows } = await tools.auditedOk('submitStepResult', {
      planId,
      stepId: steps[0],
      result: { summary: 'all at once' },
    });
    expect(answer).toEqual({ submitted: true, planStatus: PlanStatus.PLAN_STATUS_COMPLETED });
    expect(events(rows)).toEqual([
      {
        type: 'step_started',
        planId,
        stepId: steps[0],
        sessionId: null,
        details: { stepOrder: 1, autoAdvanced: true },
      },
      {
        type: 'step_completed',
        planId,
        stepId: steps[0],
        sessionId: null,
        details: { stepOrder: 1, confidence: null, via: 'result', branch: null },
      },
      {
        type: 'plan_status_changed',
        planId,
        stepId: null,
        sessionId: null,
        details: { from: 'planning', to: 'completed', cause: 'submit_step_result' },
      },
    ]);
    await tools.expectSameTransaction(rows, 'research_plans', planId);
  });

  it('records the branch a result took: skip_to lists the skipped steps, fail names the condition', async () => {
    const skip = await tools.newPlan(4, {
      branchingConditions: [
        {
          afterStepOrder: 1,
          conditionExpression: 'result.sources.count >= 5',
          ifTrueAction: BranchAction.BRANCH_ACTION_SKIP_TO,
          actionParams: { targetStepOrder: 4 },
        },
      ],
    });
    const [skipCondition] = await conditionIdsOf(engine.database.admin, skip.planId);
    await api.call('getNextStep', { planId: skip.planId });
    const skipped = await tools.auditedOk('submitStepResult', {
      planId: skip.planId,
      stepId: skip.steps[0],
      result: { sources: { count: 7 } },
      confidence: 0.8,
    });
    expect(events(skipped.rows)).toEqual([
      {
        type: 'step_completed',
        planId: skip.planId,
        stepId: skip.steps[0],
        sessionId: null,
        details: {
          stepOrder: 1,
          confidence: 0.8,
          via: 'result',
          branch: {
            conditionId: skipCondition,
            action: 'skip_to',
            targetStepId: skip.steps[3],
            skippedStepIds: [skip.steps[1], skip.steps[2]],
          },
        },
      },
    ]);
    await tools.expectSameTransaction(skipped.rows, 'plan_steps', skip.steps[2]!);

    const fail = await tools.newPlan(3, {
      branchingConditions: [
        { afterStepOrder: 1, conditionExpression: 'confidence < 0.3', ifTrueAction: BranchAction.BRANCH_ACTION_FAIL },
      ],
    });
    const [failCondition] = await conditionIdsOf(engine.database.admin, fail.planId);
    await api.call('getNextStep', { planId: fail.planId });
    const failed = await tools.auditedOk('submitStepResult', {
      planId: fail.planId,
      stepId: fail.steps[0],
      result: { sources: [] },
      confidence: 0.2,
      sessionId: 's-fail',
    });
    expect(failed.answer).toEqual({ submitted: true, planStatus: PlanStatus.PLAN_STATUS_FAILED });
    expect(events(failed.rows)).toEqual([
      {
        type: 'step_completed',
        planId: fail.planId,
        stepId: fail.steps[0],
        sessionId: 's-fail',
        details: {
          stepOrder: 1,
          confidence: 0.2,
          via: 'result',
          branch: { conditionId: failCondition, action: 'fail', targetStepId: null, skippedStepIds: [] },
        },
      },
      {
        type: 'plan_status_changed',
        planId: fail.planId,
        stepId: null,
        sessionId: 's-fail',
        details: { from: 'executing', to: 'failed', cause: 'branch_condition', conditionId: failCondition },
      },
    ]);
    await tools.expectSameTransaction(failed.rows, 'research_plans', fail.planId);
  });
});
