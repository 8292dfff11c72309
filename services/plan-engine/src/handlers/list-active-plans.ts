import type { planV1 } from '@quarry/contracts';
import { cursorScope } from '@quarry/cursors';
import type { CallContext } from '@quarry/grpc';
import { type PlanStatus, reportedPlanStatus } from '../core/index.js';
import { activePlansPage, countActivePlans } from '../store/active-plans.js';
import { listAfter, listCursor } from './list-cursors.js';
import { inTenant, type PlanHandlerDeps } from './plan-transaction.js';
import { activePlanOf } from './to-proto.js';

const DEFAULT_PAGE = 20;

/**
 * list_active_plans: the org's unfinished plans, most recently updated first: all of them, as
 * the public contract has it, unless the client asks for a page (a limit, or a cursor).
 */
export async function listActivePlans(
  deps: PlanHandlerDeps,
  req: planV1.ListActivePlansRequest,
  ctx: CallContext,
): Promise<planV1.ListActivePlansResponse> {
  const limit = req.limit ?? (req.cursor ? DEFAULT_PAGE : undefined);
  const scope = cursorScope('list_active_plans', ctx.identity.orgId);
  const after = listAfter(deps, scope, req.cursor);
  const at = deps.now();
  return inTenant(deps, ctx, async (trx) => {
    const activePlans = await countActivePlans(trx);
    const page = await activePlansPage(trx, { after, limit });
    return {
      activePlans,
      plans: page.plans.map(({ plan, steps }) =>
        activePlanOf(plan, steps, reportedPlanStatus(plan.status as PlanStatus, steps, at, deps.stallThresholdMs)),
      ),
      nextCursor: listCursor(deps, scope, page.next),
    };
  });
}
