import type { planV1 } from '@quarry/contracts';
import { cursorScope } from '@quarry/cursors';
import type { CallContext } from '@quarry/grpc';
import { type PlanStatus, reportedPlanStatus } from '../core/index.js';
import { planStatuses } from '../enums.js';
import { type PlanFilter, plansPage } from '../store/plan-list.js';
import { listAfter, listCursor } from './list-cursors.js';
import { inTenant, type PlanHandlerDeps } from './plan-transaction.js';
import { planListingOf } from './to-proto.js';

const DEFAULT_PAGE = 20;

/** list_plans: the org's plans in every status, filtered, most recently updated first, a page at a time. */
export async function listPlans(
  deps: PlanHandlerDeps,
  req: planV1.ListPlansRequest,
  ctx: CallContext,
): Promise<planV1.ListPlansResponse> {
  const filter: PlanFilter = {
    status: planStatuses.nameOf(req.status),
    query: req.query,
    updatedSince: req.updatedSince,
    includeArchived: req.includeArchived ?? false,
  };
  // A cursor belongs to one org and one set of filters.
  const scope = cursorScope('list_plans', ctx.identity.orgId, filter);
  const after = listAfter(deps, scope, req.cursor);
  const at = deps.now();
  return inTenant(deps, ctx, async (trx) => {
    const page = await plansPage(trx, filter, { after, limit: req.limit ?? DEFAULT_PAGE });
    return {
      plans: page.plans.map(({ plan, steps }) =>
        planListingOf(plan, steps, reportedPlanStatus(plan.status as PlanStatus, steps, at, deps.stallThresholdMs)),
      ),
      nextCursor: listCursor(deps, scope, page.next),
    };
  });
}
