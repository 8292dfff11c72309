import { describe, expect, it } from '@jest/globals';
import { ReviewDecision } from '../support/plan-api.js';
import { api, events, tools, useAuditedPlanEngine } from '../support/audit.js';

// plan.plan_audit_log for user reviews (request_user_review and submit_user_decision): every call
// appends exactly the business events it caused in the same transaction as the change, and a
// refusal appends nothing.

useAuditedPlanEngine();

describe('request_user_review and submit_user_decision', () => {
  async function awaitingReview(sessionId?: string) {
    const plan = await tools.newPlan(2);
    await api.call('getNextStep', { planId: plan.planId });
    const requested = await tools.auditedOk('requestUserReview', {
      planId: plan.planId,
      stepId: plan.steps[0],
      summary: 'Look',
      questions: ['Good?'],
      ...(sessionId ? { sessionId } : {}),
    });
    return { ...plan, requested };
  }

  it('request_user_review writes user_reviewed (requested) and the move to awaiting_review', async () => {
    const { planId, steps, requested } = await awaitingReview('s-review');
    expect(events(requested.rows)).toEqual([
      {
        type: 'user_reviewed',
        planId,
        stepId: steps[0],
        sessionId: 's-review',
        details: { action: 'review_requested', summary: 'Look', questions: ['Good?'] },
      },
      {
        type: 'plan_status_changed',
        planId,
        stepId: null,
        sessionId: 's-review',
        details: { from: 'executing', to: 'awaiting_review', cause: 'request_review' },
      },
    ]);
    await tools.expectSameTransaction(requested.rows, 'research_plans', planId);
    await tools.expectSameTransaction(requested.rows, 'user_reviews', requested.answer.reviewId);
  });

  it.each([
    {
      decision: 'approve',
      feedback: undefined,
      stepEvent: { type: 'step_completed', details: { stepOrder: 1, confidence: null, via: 'review', branch: null } },
      to: 'executing',
    },
    {
      decision: 'reject',
      feedback: 'Wrong sources',
      stepEvent: { type: 'step_failed', details: { stepOrder: 1, reason: 'Wrong sources', via: 'review' } },
      to: 'failed',
    },
    { decision: 'modify', feedback: 'Use 2024 data', stepEvent: undefined, to: 'executing' },
    { decision: 'skip', feedback: undefined, stepEvent: undefined, to: 'executing' },
  ])(
    'submit_user_decision($decision) writes user_reviewed (decided), its step event and the status change',
    async ({ decision, feedback, stepEvent, to }) => {
      const { planId, steps } = await awaitingReview();
      const { answer, rows } = await tools.auditedOk('submitUserDecision', {
        planId,
        stepId: steps[0],
        decision: ReviewDecision[`REVIEW_DECISION_${decision.toUpperCase()}` as keyof typeof ReviewDecision],
        sessionId: 's-decide',
        ...(feedback ? { feedback } : {}),
      });
      expect(events(rows)).toEqual([
        {
          type: 'user_reviewed',
          planId,
          stepId: steps[0],
          sessionId: 's-decide',
          details: { action: 'decision_submitted', decision, feedback: feedback ?? null },
        },
        ...(stepEvent ? [{ ...stepEvent, planId, stepId: steps[0], sessionId: 's-decide' }] : []),
        {
          type: 'plan_status_changed',
          planId,
          stepId: null,
          sessionId: 's-decide',
          details: { from: 'awaiting_review', to, cause: 'decide_review' },
        },
      ]);
      await tools.expectSameTransaction(rows, 'research_plans', planId);
      await tools.expectSameTransaction(rows, 'user_reviews', answer.reviewId);
    },
  );

  it('writes nothing when a review or a decision is refused', async () => {
    const { planId, steps } = await awaitingReview();
    await tools.expectRefusedWithoutTrace(
      'requestUserReview',
      { planId, stepId: steps[1], summary: 'pending step' },
      'STEP_STATE_CONFLICT',
    );
    await tools.expectRefusedWithoutTrace(
      'submitUserDecision',
      { planId, stepId: steps[1], decision: ReviewDecision.REVIEW_DECISION_APPROVE },
      'STEP_STATE_CONFLICT',
    );
    await tools.expectRefusedWithoutTrace(
      'submitUserDecision',
      { planId, stepId: steps[0], decision: ReviewDecision.REVIEW_DECISION_MODIFY },
      'INVALID_ARGUMENT',
    );
  });
});
