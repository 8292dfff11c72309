import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  expectRefusal,
  NextStepStatus,
  type PlanCaller,
  PlanStatus,
  ReviewDecision,
  StepStatus,
  stepsOf,
} from '../support/plan-api.js';
import { startTestPlanEngine, type TestPlanEngine } from '../support/plan-engine.js';
import { auditRows } from '../support/plan-rows.js';

// request_user_review and submit_user_decision: a step waits for the user, each decision moves
// it (and the plan) on, and calls in the wrong state are refused by naming the state.

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

describe('a user review', () => {
  it('approve, modify and skip: each decision moves the step and lets the plan go on; wrong states are refused by name', async () => {
    const { planId } = await api.call('createResearchPlan', {
      name: 'Reviewed',
      researchQuestion: 'What does the user think?',
      steps: stepsOf('checkpoint', 'checkpoint', 'checkpoint', 'synthesize'),
    });
    const one = (await api.call('getNextStep', { planId })).step!.stepId;
    const two = (await api.call('getNextStep', { planId })).step!.stepId;
    const three = (await api.call('getPlanStatus', { planId })).pendingSteps[0]!.stepId;

    const requested = await api.call('requestUserReview', {
      planId,
      stepId: one,
      summary: 'Found 12 sources.',
      questions: ['Include preprints?'],
      sessionId: 'review-s',
    });
    expect(requested).toEqual({
      reviewId: expect.any(String),
      stepStatus: StepStatus.STEP_STATUS_AWAITING_INPUT,
      planStatus: PlanStatus.PLAN_STATUS_AWAITING_REVIEW,
    });
    // get_next_step names the step under review and what the user is asked.
    expect(await api.call('getNextStep', { planId })).toMatchObject({
      status: NextStepStatus.NEXT_STEP_STATUS_AWAITING_REVIEW,
      step: undefined,
      review: {
        reviewId: requested.reviewId,
        stepId: one,
        stepOrder: 1,
        summary: 'Found 12 sources.',
        questions: ['Include preprints?'],
      },
    });
    expect(await api.call('getPlanStatus', { planId })).toMatchObject({
      status: PlanStatus.PLAN_STATUS_AWAITING_REVIEW,
      currentStep: { stepOrder: 1, status: StepStatus.STEP_STATUS_AWAITING_INPUT },
    });

    // Only the step awaiting input can be decided; the refusal names the state it is in.
    const approve = ReviewDecision.REVIEW_DECISION_APPROVE;
    expectRefusal(
      await api.refusal('submitUserDecision', { planId, stepId: two, decision: approve }),
      'STEP_STATE_CONFLICT',
      /Step 2 is in_progress/,
      /awaiting_input/,
    );
    expectRefusal(
      await api.refusal('submitUserDecision', { planId, stepId: three, decision: approve }),
      'STEP_STATE_CONFLICT',
      /Step 3 is pending/,
      /awaiting_input/,
    );
    // While the review is open, nobody works around it on steps that were never handed out.
    expectRefusal(
      await api.refusal('submitStepResult', { planId, stepId: three, result: {} }),
      'PLAN_STATE_CONFLICT',
      /Plan is awaiting_review/,
      /step 3 is pending/,
    );

    const approved = await api.call('submitUserDecision', {
      planId,
      stepId: one,
      decision: approve,
      feedback: 'Looks right.',
      sessionId: 'review-s',
    });
    expect(approved).toEqual({
      reviewId: requested.reviewId,
      decision: approve,
      stepStatus: StepStatus.STEP_STATUS_COMPLETED,
      planStatus: PlanStatus.PLAN_STATUS_EXECUTING,
    });
    expectRefusal(
      await api.refusal('submitUserDecision', { planId, stepId: one, decision: approve }),
      'PLAN_STATE_CONFLICT',
      /Plan is executing/,
      /awaiting_review/,
    );

    // modify: the feedback is required, and it is appended to the step's instructions.
    await api.call('requestUserReview', { planId, stepId: two, summary: 'Draft comparison.' });
    const modify = ReviewDecision.REVIEW_DECISION_MODIFY;
    expectRefusal(
      await api.refusal('submitUserDecision', { planId, stepId: two, decision: modify }),
      'INVALID_ARGUMENT',
      /feedback must not be empty/,
    );
    const modified = await api.call('submitUserDecision', {
      planId,
      stepId: two,
      decision: modify,
      feedback: 'Include 2024 data.',
    });
    expect(modified).toMatchObject({
      decision: modify,
      stepStatus: StepStatus.STEP_STATUS_IN_PROGRESS,
      planStatus: PlanStatus.PLAN_STATUS_EXECUTING,
    });
    const context = await api.call('getStepContext', { planId, stepId: two });
    expect(context.currentStep).toMatchObject({
      status: StepStatus.STEP_STATUS_IN_PROGRESS,
      instructions: 'Step 2: checkpoint\n\nUser feedback: Include 2024 data.',
    });
    await api.call('submitStepResult', { planId, stepId: two, result: { comparison: 'with 2024 data' } });

    // skip
    expect((await api.call('getNextStep', { planId })).step!.stepId).toBe(three);
    await api.call('requestUserReview', { planId, stepId: three, summary: 'Optional deep dive.' });
    expect(
      await api.call('submitUserDecision', { planId, stepId: three, decision: ReviewDecision.REVIEW_DECISION_SKIP }),
    ).toMatchObject({ stepStatus: StepStatus.STEP_STATUS_SKIPPED, planStatus: PlanStatus.PLAN_STATUS_EXECUTING });

    // A review is only for a step in progress; the refusal changes nothing.
    const four = (await api.call('getPlanStatus', { planId })).pendingSteps[0]!.stepId;
    const before = (await audit(planId)).length;
    expectRefusal(
      await api.refusal('requestUserReview', { planId, stepId: four, summary: 'Too early.' }),
      'STEP_STATE_CONFLICT',
      /Step 4 is pending/,
      /in_progress/,
    );
    expect(await audit(planId)).toHaveLength(before);
    expect(await api.call('getPlanStatus', { planId })).toMatchObject({
      status: PlanStatus.PLAN_STATUS_EXECUTING,
      progress: 75,
    });

    const reviews = (await audit(planId))
      .filter((row) => row.eventType === 'user_reviewed')
      .map((row) => [row.details.action, row.details.decision ?? null]);
    expect(reviews).toEqual([
      ['review_requested', null],
      ['decision_submitted', 'approve'],
      ['review_requested', null],
      ['decision_submitted', 'modify'],
      ['review_requested', null],
      ['decision_submitted', 'skip'],
    ]);
  });

  it('reject: the step fails with the feedback as its reason and the plan fails', async () => {
    const { planId } = await api.call('createResearchPlan', {
      name: 'Rejected',
      researchQuestion: 'Will the user accept it?',
      steps: stepsOf('checkpoint', 'synthesize'),
    });
    const step = (await api.call('getNextStep', { planId })).step!.stepId;
    await api.call('requestUserReview', { planId, stepId: step, summary: 'Scope proposal.' });
    const rejected = await api.call('submitUserDecision', {
      planId,
      stepId: step,
      decision: ReviewDecision.REVIEW_DECISION_REJECT,
      feedback: 'Wrong scope.',
    });
    expect(rejected).toMatchObject({
      decision: ReviewDecision.REVIEW_DECISION_REJECT,
      stepStatus: StepStatus.STEP_STATUS_FAILED,
      planStatus: PlanStatus.PLAN_STATUS_FAILED,
    });
    expect(await api.call('getNextStep', { planId })).toMatchObject({
      status: NextStepStatus.NEXT_STEP_STATUS_PLAN_FAILED,
    });
    const context = await api.call('getResearchContext', { planId });
    expect(context.plan!.status).toBe(PlanStatus.PLAN_STATUS_FAILED);
    expect(context.steps[0]).toMatchObject({ status: StepStatus.STEP_STATUS_FAILED, failureReason: 'Wrong scope.' });
  });

  it('a decision naming its review: refused once that review is no longer the open one, recording nothing', async () => {
    const { planId } = await api.call('createResearchPlan', {
      name: 'Named review',
      researchQuestion: 'Which review is decided?',
      steps: stepsOf('checkpoint', 'synthesize'),
    });
    const stepId = (await api.call('getNextStep', { planId })).step!.stepId;
    const first = await api.call('requestUserReview', { planId, stepId, summary: 'First look.' });
    await api.call('submitUserDecision', {
      planId,
      stepId,
      reviewId: first.reviewId,
      decision: ReviewDecision.REVIEW_DECISION_MODIFY,
      feedback: 'Look again.',
    });
    const second = await api.call('requestUserReview', { planId, stepId, summary: 'Second look.' });
    const before = await audit(planId);

    // A late answer to the first review (e.g. a replayed form) must not decide the second one.
    expectRefusal(
      await api.refusal('submitUserDecision', {
        planId,
        stepId,
        reviewId: first.reviewId,
        decision: ReviewDecision.REVIEW_DECISION_APPROVE,
      }),
      'REVIEW_NOT_OPEN',
      new RegExp(`Review ${first.reviewId} is no longer open`),
      /Nothing was recorded/,
    );
    expect(await audit(planId)).toEqual(before);
    expect(await api.call('getPlanStatus', { planId })).toMatchObject({
      status: PlanStatus.PLAN_STATUS_AWAITING_REVIEW,
    });

    expect(
      await api.call('submitUserDecision', {
        planId,
        stepId,
        reviewId: second.reviewId,
        decision: ReviewDecision.REVIEW_DECISION_APPROVE,
      }),
    ).toMatchObject({ reviewId: second.reviewId, stepStatus: StepStatus.STEP_STATUS_COMPLETED });
  });
});
