import type { planV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { planStatuses, stepStatuses } from '../enums.js';
import { insertReview } from '../store/reviews.js';
import { inTenant, mutate, type PlanHandlerDeps } from './plan-transaction.js';

/** request_user_review: the step waits for the user's decision, and the plan with it. */
export async function requestUserReview(
  deps: PlanHandlerDeps,
  req: planV1.RequestUserReviewRequest,
  ctx: CallContext,
): Promise<planV1.RequestUserReviewResponse> {
  return inTenant(deps, ctx, async (trx) => {
    const { result, at } = await mutate(deps, trx, ctx, req.planId, {
      type: 'request_review',
      stepId: req.stepId,
      summary: req.summary,
      questions: req.questions,
      sessionId: req.sessionId ?? null,
    });
    const reviewId = await insertReview(trx, {
      org_id: ctx.identity.orgId,
      plan_id: req.planId,
      step_id: req.stepId,
      summary: req.summary,
      questions: req.questions,
      requested_session_id: req.sessionId ?? null,
      requested_at: at,
    });
    const step = result.state.steps.find((s) => s.id === req.stepId)!;
    return {
      reviewId,
      stepStatus: stepStatuses.valueOf(step.status),
      planStatus: planStatuses.valueOf(result.state.status),
    };
  });
}
