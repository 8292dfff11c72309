import { planV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { nextStepStatuses } from '../enums.js';
import { outputPreferences } from '../store/output-preferences.js';
import { openReviewOfPlan } from '../store/reviews.js';
import { inTenant, mutate, type PlanHandlerDeps } from './plan-transaction.js';
import { claimedStep, outputPreferencesOf } from './to-proto.js';

/**
 * get_next_step: claims the lowest pending step under the plan lock, so concurrent callers never
 * get the same one. Once the plan is complete it answers with what the final deliverable needs:
 * the org's output preferences and the formatting notes gathered from the plan and its steps;
 * while the plan waits for a review, with the step under review and the user's questions.
 */
export async function getNextStep(
  deps: PlanHandlerDeps,
  req: planV1.GetNextStepRequest,
  ctx: CallContext,
): Promise<planV1.GetNextStepResponse> {
  return inTenant(deps, ctx, async (trx) => {
    const { plan, result } = await mutate(deps, trx, ctx, req.planId, {
      type: 'claim_next_step',
      sessionId: req.sessionId ?? null,
    });
    const outcome = result.outcome!;
    const response: planV1.GetNextStepResponse = {
      status: nextStepStatuses.valueOf(outcome.status),
      outputMediaType: planV1.OutputMediaType.OUTPUT_MEDIA_TYPE_UNSPECIFIED,
      stepFormattingNotes: [],
    };
    if (outcome.status === 'next_step') {
      response.step = claimedStep(result.state.steps.find((s) => s.id === outcome.stepId)!);
    } else if (outcome.status === 'plan_complete') {
      Object.assign(response, outputPreferencesOf(await outputPreferences(trx), plan, result.state.steps));
    } else if (outcome.status === 'awaiting_review') {
      const open = await openReviewOfPlan(trx, plan.id);
      const step = result.state.steps.find((s) => s.id === open?.step_id);
      if (open && step) {
        response.review = {
          reviewId: open.id,
          stepId: step.id,
          stepOrder: step.order,
          summary: open.summary,
          questions: open.questions,
        };
      }
    }
    return response;
  });
}
