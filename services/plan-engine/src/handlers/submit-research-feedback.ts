import type { planV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { feedbackTypes, userSatisfactions } from '../enums.js';
import { insertFeedback } from '../store/feedback.js';
import { applyTransition, inTenant, mustLoad, type PlanHandlerDeps } from './plan-transaction.js';

/** submit_research_feedback: stores the user's feedback on a plan, with a feedback_recorded audit row. */
export async function submitResearchFeedback(
  deps: PlanHandlerDeps,
  req: planV1.SubmitResearchFeedbackRequest,
  ctx: CallContext,
): Promise<planV1.SubmitResearchFeedbackResponse> {
  const feedbackType = feedbackTypes.required(req.feedbackType, 'feedbackType');
  return inTenant(deps, ctx, async (trx) => {
    const loaded = await mustLoad(trx, req.planId, true);
    const at = deps.now();
    const feedbackId = await insertFeedback(trx, {
      org_id: ctx.identity.orgId,
      plan_id: req.planId,
      feedback_type: feedbackType,
      user_satisfaction: req.userSatisfaction
        ? userSatisfactions.required(req.userSatisfaction, 'userSatisfaction')
        : null,
      user_feedback_summary: req.userFeedbackSummary ?? null,
      improvement_suggestions: req.improvementSuggestions ?? null,
      follow_up_requested: req.followUpRequested ?? null,
      follow_up_details: req.followUpDetails ?? null,
      session_id: req.sessionId ?? null,
      created_at: at,
    });
    await applyTransition(trx, ctx, loaded, {
      type: 'record_feedback',
      feedbackId,
      feedbackType,
      sessionId: req.sessionId ?? null,
      at,
    });
    return { feedbackId, feedbackType: req.feedbackType, stored: true };
  });
}
