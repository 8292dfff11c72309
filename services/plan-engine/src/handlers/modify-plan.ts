import type { planV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { modifyFieldViolation, type PlanEvent } from '../core/index.js';
import { modifyActions, planStatuses, stepTypes } from '../enums.js';
import { planErrors } from '../errors.js';
import { inTenant, mutate, type PlanHandlerDeps, type Untimed } from './plan-transaction.js';
import { stepOverview } from './to-proto.js';

/** modify_plan: one of five actions, each a core event; the answer is the plan's steps afterwards. */
export async function modifyPlan(
  deps: PlanHandlerDeps,
  req: planV1.ModifyPlanRequest,
  ctx: CallContext,
): Promise<planV1.ModifyPlanResponse> {
  const event = modifyEvent(deps, req);
  const { result } = await inTenant(deps, ctx, (trx) => mutate(deps, trx, ctx, req.planId, event));
  return {
    planId: req.planId,
    action: req.action,
    planStatus: planStatuses.valueOf(result.state.status),
    steps: result.state.steps.map(stepOverview),
  };
}

/** The core event for the request's action, once its fields fit the action. */
function modifyEvent(deps: PlanHandlerDeps, req: planV1.ModifyPlanRequest): Untimed<PlanEvent> {
  const action = modifyActions.required(req.action, 'action');
  const violation = modifyFieldViolation(action, {
    steps: req.steps.length > 0,
    stepId: req.stepId !== undefined,
    stepOrder: req.stepOrder.length > 0,
    updatedInstructions: req.updatedInstructions !== undefined,
    reason: req.reason !== undefined,
  });
  if (violation) throw planErrors.INVALID_ARGUMENT(violation);
  const base = { sessionId: req.sessionId ?? null, rationale: req.modificationRationale ?? null };
  switch (action) {
    case 'add_steps':
      return {
        ...base,
        type: 'add_steps',
        steps: req.steps.map((s) => ({
          id: deps.newId(),
          type: stepTypes.required(s.stepType, 'stepType'),
          instructions: s.instructions,
          insertAfterOrder: s.insertAfterOrder ?? null,
        })),
      };
    case 'remove_step':
      return { ...base, type: 'remove_step', stepId: req.stepId! };
    case 'reorder_steps':
      return { ...base, type: 'reorder_steps', stepIds: req.stepOrder };
    case 'update_step_instructions':
      return { ...base, type: 'update_step_instructions', stepId: req.stepId!, instructions: req.updatedInstructions! };
    case 'fail_step':
      return { ...base, type: 'fail_step', stepId: req.stepId!, reason: req.reason ?? null };
  }
}
