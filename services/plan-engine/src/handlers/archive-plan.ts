import type { planV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { archiveEffects } from '../core/index.js';
import { planStatuses } from '../enums.js';
import { setArchived } from '../store/plan-list.js';
import { applyEffects } from '../store/plans.js';
import { inTenant, mustLoad, type PlanHandlerDeps } from './plan-transaction.js';

/** archive_plan: hides the plan from the active lists; a repeat changes nothing and answers the same. */
export async function archivePlan(
  deps: PlanHandlerDeps,
  req: planV1.ArchivePlanRequest,
  ctx: CallContext,
): Promise<planV1.ArchivePlanResponse> {
  return inTenant(deps, ctx, async (trx) => setFlag(deps, trx, ctx, req, true));
}

/** The shared body of archive_plan and unarchive_plan (unarchive-plan.ts). */
export async function setFlag(
  deps: PlanHandlerDeps,
  trx: Parameters<typeof mustLoad>[0],
  ctx: CallContext,
  req: { planId: string; sessionId?: string | undefined },
  archived: boolean,
): Promise<{ planId: string; archived: boolean; status: planV1.PlanStatus }> {
  const { plan, snapshot } = await mustLoad(trx, req.planId, true);
  const at = deps.now();
  if (await setArchived(trx, plan.id, archived, at)) {
    await applyEffects(
      trx,
      { orgId: ctx.identity.orgId, planId: plan.id, after: snapshot, at },
      archiveEffects(archived, req.sessionId ?? null),
    );
  }
  return { planId: plan.id, archived, status: planStatuses.valueOf(snapshot.status) };
}
