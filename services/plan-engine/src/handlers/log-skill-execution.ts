import type { planV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { isFinishedSkillStatus } from '../core/index.js';
import { skillStatuses } from '../enums.js';
import { planErrors } from '../errors.js';
import { storedPlanId } from '../store/plans.js';
import { insertExecution, lockExecution, updateExecution } from '../store/skill-executions.js';
import { inTenant, type PlanHandlerDeps } from './plan-transaction.js';

/**
 * log_skill_execution: starts a run (no executionId) or updates one. A run keeps its skill, a
 * finished run keeps its final status, and it is timed from its start to its end. Not a plan
 * event: it writes no audit row, even when it names a plan.
 */
export async function logSkillExecution(
  deps: PlanHandlerDeps,
  req: planV1.LogSkillExecutionRequest,
  ctx: CallContext,
): Promise<planV1.LogSkillExecutionResponse> {
  const status = skillStatuses.required(req.status, 'status');
  const finished = isFinishedSkillStatus(status);
  const answer = (executionId: string) => ({ executionId, skillName: req.skillName, status: req.status, stored: true });
  return inTenant(deps, ctx, async (trx) => {
    const at = deps.now();
    if (req.planId && !(await storedPlanId(trx, req.planId))) throw planErrors.PLAN_NOT_FOUND({ planId: req.planId });
    if (!req.executionId) {
      const executionId = await insertExecution(trx, {
        org_id: ctx.identity.orgId,
        skill_name: req.skillName,
        status,
        plan_id: req.planId ?? null,
        session_id: req.sessionId ?? null,
        metadata: JSON.stringify(req.metadata ?? {}),
        error_message: req.errorMessage ?? null,
        started_at: at,
        updated_at: at,
        completed_at: finished ? at : null,
      });
      return answer(executionId);
    }
    const existing = await lockExecution(trx, req.executionId);
    if (!existing) throw planErrors.SKILL_EXECUTION_NOT_FOUND({ executionId: req.executionId });
    if (existing.skill_name !== req.skillName) {
      throw planErrors.INVALID_ARGUMENT({
        field: 'skillName',
        rule: `must stay "${existing.skill_name}" for execution ${existing.id}`,
      });
    }
    if (isFinishedSkillStatus(existing.status) && existing.status !== status) {
      throw planErrors.SKILL_EXECUTION_FINISHED({ executionId: existing.id, status: existing.status });
    }
    await updateExecution(
      trx,
      existing.id,
      {
        status,
        error_message: req.errorMessage ?? existing.error_message,
        plan_id: existing.plan_id ?? req.planId ?? null,
        session_id: existing.session_id ?? req.sessionId ?? null,
        completed_at: finished ? (existing.completed_at ?? at) : null,
        updated_at: at,
      },
      req.metadata ?? {},
    );
    return answer(existing.id);
  });
}
