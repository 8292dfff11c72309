import type { planV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { createPlan } from '../core/index.js';
import { branchActions, stepTypes } from '../enums.js';
import { planErrors } from '../errors.js';
import { applyEffects, insertPlan } from '../store/plans.js';
import { activeExecutionOfSession, linkExecutionToPlan } from '../store/skill-executions.js';
import { decide, inTenant, type PlanHandlerDeps } from './plan-transaction.js';

/**
 * create_research_plan: the core builds and checks the whole plan before anything is written;
 * then the plan row, its steps, conditions and `created` audit row go in one transaction. A
 * plan created in a session joins that session's run still under way (log_skill_execution).
 */
export async function createResearchPlan(
  deps: PlanHandlerDeps,
  req: planV1.CreateResearchPlanRequest,
  ctx: CallContext,
): Promise<planV1.CreateResearchPlanResponse> {
  if (req.steps.length === 0)
    throw planErrors.INVALID_ARGUMENT({ field: 'steps', rule: 'must contain at least one step' });
  const at = deps.now();
  const planId = deps.newId();
  const result = decide(() =>
    createPlan({
      steps: req.steps.map((s) => ({
        id: deps.newId(),
        type: stepTypes.required(s.stepType, 'stepType'),
        instructions: s.instructions,
      })),
      branchingConditions: req.branchingConditions.map((c) => ({
        id: deps.newId(),
        afterStepOrder: c.afterStepOrder,
        conditionExpression: c.conditionExpression,
        ifTrueAction: branchActions.required(c.ifTrueAction, 'ifTrueAction'),
        actionParams: c.actionParams ? { targetStepOrder: c.actionParams.targetStepOrder } : null,
      })),
      rationale: req.planDesignRationale ?? null,
      sessionId: req.sessionId ?? null,
    }),
  );
  const orgId = ctx.identity.orgId;
  await inTenant(deps, ctx, async (trx) => {
    const executionId = req.sessionId ? await activeExecutionOfSession(trx, req.sessionId) : undefined;
    await insertPlan(trx, {
      id: planId,
      org_id: orgId,
      name: req.name,
      research_question: req.researchQuestion,
      status: result.state.status,
      plan_design_rationale: req.planDesignRationale ?? null,
      plan_formatting_notes: req.outputFormattingNotes ?? null,
      session_id: req.sessionId ?? null,
      skill_execution_id: executionId ?? null,
      updated_at: at,
    });
    await applyEffects(trx, { orgId, planId, after: result.state, at }, result.effects);
    if (executionId) await linkExecutionToPlan(trx, executionId, planId, at);
  });
  const first = result.state.steps[0]!;
  return {
    planId,
    name: req.name,
    researchQuestion: req.researchQuestion,
    stepCount: result.state.steps.length,
    firstStep: { stepId: first.id, stepType: stepTypes.valueOf(first.type), instructions: first.instructions },
  };
}
