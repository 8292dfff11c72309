import { describe, expect, it } from '@jest/globals';
import { BranchAction, NextStepStatus, ReviewDecision, StepType } from '../support/plan-api.js';
import { api, engine, events, tools, useAuditedPlanEngine } from '../support/audit.js';
import { planSnapshot } from '../support/plan-rows.js';

// plan.plan_audit_log, as an auditor relies on it, for creating plans and claiming steps: every
// call appends exactly the business events it caused (type, step, session, payload) in the same
// transaction as the change itself, and a refused call or a call with nothing to do appends nothing.

useAuditedPlanEngine();

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
