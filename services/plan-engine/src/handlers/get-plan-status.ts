import { isDeepStrictEqual } from 'node:util';
import { type planV1, toolCatalogue } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { isTerminalPlanStatus, type PlanStatus, reportedPlanStatus } from '../core/index.js';
import { inTenant, mustLoad, type PlanHandlerDeps } from './plan-transaction.js';
import { planStatusOf } from './to-proto.js';

/** The cap proto declares on `wait_seconds` (`(quarry.mcp.v1.long_poll)`), the same one the gateway applies. */
const MAX_WAIT_SECONDS = toolCatalogue.find((tool) => tool.rpc.path === '/quarry.plan.v1.PlanService/GetPlanStatus')!
  .rpc.longPoll!.maxSeconds;

/**
 * get_plan_status, the hot read: an unchanged plan is answered from memory (the status cache),
 * and the answer's time-dependent part (stalled) is computed at each call. With waitSeconds it
 * long-polls: it answers as soon as the plan changes, holding no connection while it waits.
 */
export async function getPlanStatus(
  deps: PlanHandlerDeps,
  req: planV1.GetPlanStatusRequest,
  ctx: CallContext,
): Promise<planV1.GetPlanStatusResponse> {
  const orgId = ctx.identity.orgId;
  const read = async () => {
    const { plan, snapshot } = await deps.statusCache.read(orgId, req.planId, () =>
      inTenant(deps, ctx, (trx) => mustLoad(trx, req.planId, false)),
    );
    const reported = reportedPlanStatus(plan.status as PlanStatus, snapshot.steps, deps.now(), deps.stallThresholdMs);
    return { plan, response: planStatusOf(plan, snapshot.steps, reported) };
  };
  const waitMs = Math.min(Math.max(req.waitSeconds ?? 0, 0), MAX_WAIT_SECONDS) * 1000;
  if (waitMs === 0) return (await read()).response;
  const deadline = performance.now() + waitMs;
  // Watch first, then read: a change between the two still wakes us.
  let watch = deps.changes.watch(orgId, req.planId, waitMs, ctx.signal);
  try {
    const first = await read();
    if (isTerminalPlanStatus(first.plan.status as PlanStatus)) return first.response;
    for (;;) {
      if (!(await watch.changed)) return first.response;
      // A notification can be older than the first read (a change committed just before it and
      // heard just after), and some changes do not show in the status: answer only when what the
      // caller would see differs, and otherwise wait out the rest of its time.
      watch.cancel();
      const remaining = deadline - performance.now();
      watch = deps.changes.watch(orgId, req.planId, Math.max(remaining, 0), ctx.signal);
      const next = await read();
      if (remaining <= 0 || !isDeepStrictEqual(next.response, first.response)) return next.response;
    }
  } finally {
    watch.cancel();
  }
}
