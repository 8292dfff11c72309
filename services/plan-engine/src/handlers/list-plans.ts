import type { planV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { type PlanStatus, reportedPlanStatus } from '../core/index.js';
import { planStatuses } from '../enums.js';
import { decodeCursor, encodeCursor } from '../store/page-cursor.js';
import { plansPage } from '../store/plan-list.js';
import { inTenant, type PlanHandlerDeps } from './plan-transaction.js';
import { planListingOf } from './to-proto.js';

const DEFAULT_PAGE = 20;

/** list_plans: the org's plans in every status, filtered, most recently updated first, a page at a time. */
export async function listPlans(
  deps: PlanHandlerDeps,
  req: planV1.ListPlansRequest,
  ctx: CallContext,
): Promise<planV1.ListPlansResponse> {
  const after = req.cursor ? decodeCursor(req.cursor) : undefined;
  const at = deps.now();
  return inTenant(deps, ctx, async (trx) => {
    const page = await plansPage(
      trx,
      {
        status: planStatuses.nameOf(req.status),
        query: req.query,
        updatedSince: req.updatedSince,
        includeArchived: req.includeArchived ?? false,
      },
      { after, limit: req.limit ?? DEFAULT_PAGE },
    );
    const last = page.plans.at(-1)?.plan;
    return {
      plans: page.plans.map(({ plan, steps }) =>
        planListingOf(plan, steps, reportedPlanStatus(plan.status as PlanStatus, steps, at, deps.stallThresholdMs)),
      ),
      nextCursor: page.more && last ? encodeCursor(last) : undefined,
    };
  });
}
