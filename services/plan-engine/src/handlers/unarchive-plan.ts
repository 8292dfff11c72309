import type { planV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { setFlag } from './archive-plan.js';
import { inTenant, type PlanHandlerDeps } from './plan-transaction.js';

/** unarchive_plan: brings the plan back into the active lists; a repeat changes nothing. */
export async function unarchivePlan(
  deps: PlanHandlerDeps,
  req: planV1.UnarchivePlanRequest,
  ctx: CallContext,
): Promise<planV1.UnarchivePlanResponse> {
  return inTenant(deps, ctx, async (trx) => setFlag(deps, trx, ctx, req, false));
}
