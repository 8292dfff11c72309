import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  BranchAction,
  NextStepStatus,
  type PlanCaller,
  PlanStatus,
  ReviewDecision,
  StepType,
} from '../support/plan-api.js';
import { type AuditTools, auditTools, events } from '../support/audit.js';
import { startTestPlanEngine, type TestPlanEngine } from '../support/plan-engine.js';
import { conditionIdsOf, planSnapshot } from '../support/plan-rows.js';

// plan.plan_audit_log, as an auditor relies on it, for creating plans, claiming steps and
// submitting results: every call appends exactly the business events it caused (type, step,
// session, payload) in the same transaction as the change itself, and a refused call or a call
// with nothing to do appends nothing.

let engine: TestPlanEngine;
let api: PlanCaller;
let tools: AuditTools;

beforeAll(async () => {
  engine = await startTestPlanEngine();
  api = engine.newOrg();
  tools = auditTools(engine.database.admin, api);
});
afterAll(async () => {
  await engine?.close();
});

const snapshot = () => planSnapshot(engine.database.admin);

describe('create_research_plan', () => {
  it('writes one plan_modified (created) row with the counts, the rationale and the session', async () => {
    const { answer, rows } = await tools.auditedOk('createResearchPlan', {
      name: 'Created',
      researchQuestion: 'Recorded?',
      steps: [
        { stepType: StepType.STEP_TYPE_SEARCH, instructions: 'Search' },
        { stepType: StepType.STEP_TYPE_ANALYZE, instructions: 'Analyze' },
        { stepType: StepType.STEP_TYPE_SYNTHESIZE, instructions: 'Write' },
      ],
      branchingConditions: [
        {
          afterStepOrder: 1,
          conditionExpression: 'confidence < 0.5',
          ifTrueAction: BranchAction.BRANCH_ACTION_SKIP_TO,
          actionParams: { targetStepOrder: 3 },
        },
      ],
      planDesignRationale: 'Search, then think',
      sessionId: 's-create',
    });
    const { planId } = answer;
    expect(events(rows)).toEqual([
      {
        type: 'plan_modified',
        planId,
        stepId: null,
        sessionId: 's-create',
        details: { action: 'created', stepCount: 3, conditionCount: 1, rationale: 'Search, then think' },
      },
    ]);
    await tools.expectSameTransaction(rows, 'research_plans', planId);
  });

  it('writes nothing when the plan is refused', async () => {
    await tools.expectRefusedWithoutTrace(
      'createResearchPlan',
      {
        name: 'Refused',
        researchQuestion: 'Recorded?',
        steps: [{ stepType: StepType.STEP_TYPE_SEARCH, instructions: 'x' }],
        branchingConditions: [
          { afterStepOrder: 1, conditionExpression: 'confidence <', ifTrueAction: BranchAction.BRANCH_ACTION_FAIL },
        ],
      },
      'EXPRESSION_SYNTAX',
    );
  });
});

describe('get_next_step', () => {
  it('writes step_started, plus plan_status_changed on the first claim only, and nothing when there is nothing to hand out', async () => {
    const { planId, steps } = await tools.newPlan(2);
    const first = await tools.auditedOk('getNextStep', { planId, sessionId: 's-claim' });
    expect(events(first.rows)).toEqual([
      {
        type: 'step_started',
        planId,
        stepId: steps[0],
        sessionId: 's-claim',
        details: { stepOrder: 1, autoAdvanced: false },
      },
      {
        type: 'plan_status_changed',
        planId,
        stepId: null,
        sessionId: 's-claim',
        details: { from: 'planning', to: 'executing', cause: 'claim_next_step' },
      },
    ]);
    await tools.expectSameTransaction(first.rows, 'research_plans', planId);
    await tools.expectSameTransaction(first.rows, 'plan_steps', steps[0]!);

    const second = await tools.auditedOk('getNextStep', { planId });
    expect(events(second.rows)).toEqual([
      {
        type: 'step_started',
        planId,
        stepId: steps[1],
        sessionId: null,
        details: { stepOrder: 2, autoAdvanced: false },
      },
    ]);
    await tools.expectSameTransaction(second.rows, 'research_plans', planId);

    const before = await snapshot();
    expect((await api.call('getNextStep', { planId })).status).toBe(NextStepStatus.NEXT_STEP_STATUS_NO_PENDING_STEPS);
    expect(await snapshot()).toEqual(before);

    // Nor while a review is open, nor once the plan is finished.
    await api.call('requestUserReview', { planId, stepId: steps[0], summary: 'Wait' });
    const waiting = await snapshot();
    expect((await api.call('getNextStep', { planId })).status).toBe(NextStepStatus.NEXT_STEP_STATUS_AWAITING_REVIEW);
    expect(await snapshot()).toEqual(waiting);
    await api.call('submitUserDecision', {
      planId,
      stepId: steps[0],
      decision: ReviewDecision.REVIEW_DECISION_REJECT,
      feedback: 'stop',
    });
    const finished = await snapshot();
    expect((await api.call('getNextStep', { planId })).status).toBe(NextStepStatus.NEXT_STEP_STATUS_PLAN_FAILED);
    expect(await snapshot()).toEqual(finished);
  });
});

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
