import type { planV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { planStatuses, reviewDecisions, stepStatuses } from '../enums.js';
import { planErrors } from '../errors.js';
import { decideOpenReview } from '../store/reviews.js';
import { inTenant, mutate, type PlanHandlerDeps } from './plan-transaction.js';

/** submit_user_decision: the user's decision on the step's open review moves the step and the plan on. */
export async function submitUserDecision(
  deps: PlanHandlerDeps,
  req: planV1.SubmitUserDecisionRequest,
  ctx: CallContext,
): Promise<planV1.SubmitUserDecisionResponse> {
  const decision = reviewDecisions.required(req.decision, 'decision');
  return inTenant(deps, ctx, async (trx) => {
    const { result, at } = await mutate(deps, trx, ctx, req.planId, {
      type: 'decide_review',
      stepId: req.stepId,
      decision,
      feedback: req.feedback ?? null,
      sessionId: req.sessionId ?? null,
    });
    const reviewId = await decideOpenReview(trx, req.stepId, {
      decision,
      feedback: req.feedback ?? null,
      decided_session_id: req.sessionId ?? null,
      decided_at: at,
    });
    // The core accepted the decision, so the step was awaiting input: its review must be open.
    if (!reviewId) throw new Error(`step ${req.stepId} was awaiting input without an open review`);
    // Checked under the plan lock, once the decision is applied: a mismatch rolls all of it back.
    if (req.reviewId !== undefined && reviewId !== req.reviewId)
      throw planErrors.REVIEW_NOT_OPEN({ reviewId: req.reviewId, stepId: req.stepId });
    const step = result.state.steps.find((s) => s.id === req.stepId)!;
    return {
      reviewId,
      decision: req.decision,
      stepStatus: stepStatuses.valueOf(step.status),
      planStatus: planStatuses.valueOf(result.state.status),
    };
  });
}
