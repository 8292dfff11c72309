import type { planV1 } from '@quarry/contracts';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { planErrors } from '../errors.js';
import { deletePlanRow, insertDeletedPlan, lockPlanForDeletion, purgePlanAudit } from '../store/deleted-plans.js';
import { inTenant, mustLoad, type PlanHandlerDeps } from './plan-transaction.js';

/**
 * DeletePlan: the plan and everything it produced, in two idempotent steps. First the artifact
 * store purges the plan's artifacts, outputs and extraction results (one transaction there,
 * with their content.deleted events); then, in one transaction here, the plan row is locked,
 * its audit rows are purged through plan.purge_plan_audit, the plan row goes (its steps,
 * conditions, reviews, feedback and submit keys cascade; skill executions lose the link), and a
 * content-free tombstone is appended to plan.deleted_plans. A crash between the two steps leaves the plan in place, so
 * the client's retry finds it and completes both (the purge then finds nothing). A missing,
 * malformed, already deleted and another org's plan are PLAN_NOT_FOUND alike.
 */
export async function deletePlan(
  deps: PlanHandlerDeps,
  req: planV1.DeletePlanRequest,
  ctx: CallContext,
): Promise<planV1.DeletePlanResponse> {
  const { planId } = req;
  if (!isUuid(planId)) throw planErrors.PLAN_NOT_FOUND({ planId });
  // Refuse an unknown plan before asking the artifact store to purge anything.
  await inTenant(deps, ctx, (trx) => mustLoad(trx, planId, false));
  const purged = await deps.artifacts.purge(ctx, planId);
  const { identity } = ctx;
  const steps = await inTenant(deps, ctx, async (trx) => {
    const deletedSteps = await lockPlanForDeletion(trx, planId);
    if (deletedSteps === undefined) throw planErrors.PLAN_NOT_FOUND({ planId });
    const audit = await purgePlanAudit(trx, planId);
    await deletePlanRow(trx, planId);
    await insertDeletedPlan(trx, {
      orgId: identity.orgId,
      planId,
      deletedBy: identity.userId ?? identity.serviceName ?? identity.kind,
      requestId: identity.requestId,
      steps: deletedSteps,
      artifacts: purged.artifactsDeleted,
      outputs: purged.outputsDeleted,
      extractionResults: purged.extractionResultsDeleted,
      auditRows: audit.rows,
      auditSha256: audit.sha256,
      auditChainLinks: audit.chainLinks,
    });
    return deletedSteps;
  });
  return {
    planId,
    deleted: true,
    stepsDeleted: steps,
    artifactsDeleted: purged.artifactsDeleted,
    outputsDeleted: purged.outputsDeleted,
    extractionResultsDeleted: purged.extractionResultsDeleted,
  };
}
