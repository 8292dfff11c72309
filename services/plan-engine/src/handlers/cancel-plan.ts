import { planV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { cancelPlan as decideCancel, type PlanStatus } from '../core/index.js';
import { planStatuses } from '../enums.js';
import { recordCancellation } from '../store/plan-list.js';
import { applyEffects } from '../store/plans.js';
import { decide, inTenant, mustLoad, type PlanHandlerDeps } from './plan-transaction.js';

/**
 * cancel_plan: under the plan lock, the core decides (a terminal status and its audit row, or
 * nothing when already cancelled); the answer always comes from what is stored, so a retry gets
 * the first answer.
 */
export async function cancelPlan(
  deps: PlanHandlerDeps,
  req: planV1.CancelPlanRequest,
  ctx: CallContext,
): Promise<planV1.CancelPlanResponse> {
  return inTenant(deps, ctx, async (trx) => {
    const { plan, snapshot } = await mustLoad(trx, req.planId, true);
    const at = deps.now();
    const decision = decide(() => decideCancel(snapshot, { reason: req.reason, sessionId: req.sessionId ?? null }));
    let cancelled = { at: plan.cancelled_at, from: plan.cancelled_from };
    if (decision.cancelledNow) {
      // The status goes with its columns in one statement; the core's other effects are the audit row.
      await recordCancellation(trx, plan.id, { at, from: decision.previousStatus, reason: req.reason });
      await applyEffects(
        trx,
        { orgId: ctx.identity.orgId, planId: plan.id, after: decision.state, at },
        decision.effects.filter((effect) => effect.kind !== 'set_plan_status'),
      );
      cancelled = { at, from: decision.previousStatus };
    }
    return {
      planId: plan.id,
      status: planV1.PlanStatus.PLAN_STATUS_CANCELLED,
      previousStatus: planStatuses.valueOf(cancelled.from as PlanStatus),
      cancelledAt: cancelled.at ?? undefined,
    };
  });
}
