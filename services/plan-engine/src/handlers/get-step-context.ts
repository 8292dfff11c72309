import type { planV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { planErrors } from '../errors.js';
import { inTenant, mustLoad, type PlanHandlerDeps } from './plan-transaction.js';
import { priorStep, stepOverview } from './to-proto.js';

/**
 * get_step_context: a step with the earlier results it builds on (the ones asked for, else every
 * completed earlier step), each as a bounded summary, and the plan's artifacts.
 */
export async function getStepContext(
  deps: PlanHandlerDeps,
  req: planV1.GetStepContextRequest,
  ctx: CallContext,
): Promise<planV1.GetStepContextResponse> {
  // The plan is checked first (a missing or foreign plan is an error), then its artifacts
  // are asked for outside the transaction, so no connection waits on another service.
  const context = await inTenant(deps, ctx, async (trx) => {
    const { snapshot } = await mustLoad(trx, req.planId, false);
    const byId = new Map(snapshot.steps.map((s) => [s.id, s]));
    const current = byId.get(req.stepId);
    if (!current) throw planErrors.STEP_NOT_FOUND({ stepId: req.stepId });
    const prior = req.priorStepIds.length
      ? req.priorStepIds
          .map((id) => {
            const step = byId.get(id);
            if (!step) throw planErrors.STEP_NOT_FOUND({ stepId: id });
            return step;
          })
          .sort((a, b) => a.order - b.order)
      : snapshot.steps.filter((s) => s.status === 'completed' && s.order < current.order);
    return { currentStep: stepOverview(current), priorSteps: prior.map(priorStep) };
  });
  return { ...context, artifacts: await deps.artifacts.list(ctx, req.planId) };
}
