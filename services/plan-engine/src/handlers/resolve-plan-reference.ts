import type { planV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { planErrors } from '../errors.js';
import { storedPlanId, storedStepId } from '../store/plans.js';
import { inTenant, type PlanHandlerDeps } from './plan-transaction.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * ResolvePlanReference (internal, for the artifact store): whether the plan, and the step within
 * it, exist for the caller's org. Callers pass ids they did not validate; anything that is not a
 * UUID is missing.
 */
export async function resolvePlanReference(
  deps: PlanHandlerDeps,
  req: planV1.ResolvePlanReferenceRequest,
  ctx: CallContext,
): Promise<planV1.ResolvePlanReferenceResponse> {
  if (!UUID.test(req.planId)) throw planErrors.PLAN_NOT_FOUND({ planId: req.planId });
  if (req.stepId !== undefined && !UUID.test(req.stepId)) throw planErrors.STEP_NOT_FOUND({ stepId: req.stepId });
  return inTenant(deps, ctx, async (trx) => {
    const planId = await storedPlanId(trx, req.planId);
    if (!planId) throw planErrors.PLAN_NOT_FOUND({ planId: req.planId });
    if (req.stepId === undefined) return { planId };
    const stepId = await storedStepId(trx, planId, req.stepId);
    if (!stepId) throw planErrors.STEP_NOT_FOUND({ stepId: req.stepId });
    return { planId, stepId };
  });
}
