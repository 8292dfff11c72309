import type { planV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { type PlanStatus, reportedPlanStatus } from '../core/index.js';
import { recentAuditEvents } from '../store/audit-log.js';
import { outputPreferences } from '../store/output-preferences.js';
import { executionOfPlan } from '../store/skill-executions.js';
import { applyTransition, inTenant, mustLoad, type PlanHandlerDeps } from './plan-transaction.js';
import { auditEventOf, outputPreferencesOf, planDetailsOf, skillExecutionOf, stepDetail } from './to-proto.js';

const RECENT_AUDIT_EVENTS = 20;

/**
 * get_research_context: everything a session needs to pick a plan up: the plan, its steps with
 * their results, the latest audit events, its skill run, the org's output preferences and its
 * artifacts. With a sessionId the resume itself is recorded (session_resumed), so the audit
 * trail shows who picked the plan up.
 */
export async function getResearchContext(
  deps: PlanHandlerDeps,
  req: planV1.GetResearchContextRequest,
  ctx: CallContext,
): Promise<planV1.GetResearchContextResponse> {
  // Asked for outside the transaction, so no connection waits on another service, and alongside
  // it: the artifact store reads as the caller's org, so a plan the caller cannot see has none
  // (and the answer is then dropped for the transaction's not-found).
  const listed = deps.artifacts.list(ctx, req.planId).then(
    (list) => ({ list }),
    (error: unknown) => ({ error }),
  );
  const context = await inTenant(deps, ctx, async (trx) => {
    const loaded = await mustLoad(trx, req.planId, Boolean(req.sessionId));
    const { plan, snapshot } = loaded;
    const at = deps.now();
    const steps = req.sessionId
      ? (await applyTransition(trx, ctx, loaded, { type: 'resume_session', sessionId: req.sessionId, at })).state.steps
      : snapshot.steps;
    const [audit, skill, prefs] = await Promise.all([
      recentAuditEvents(trx, plan.id, RECENT_AUDIT_EVENTS),
      executionOfPlan(trx, plan),
      outputPreferences(trx),
    ]);
    const reported = reportedPlanStatus(plan.status as PlanStatus, snapshot.steps, at, deps.stallThresholdMs);
    return {
      plan: planDetailsOf(plan, steps, reported),
      steps: steps.map(stepDetail),
      artifacts: [],
      recentAuditEvents: audit.map(auditEventOf),
      skillExecution: skill ? skillExecutionOf(skill) : undefined,
      outputPreferences: outputPreferencesOf(prefs, plan, steps),
    };
  });
  const outcome = await listed;
  if ('error' in outcome) throw outcome.error;
  return { ...context, artifacts: outcome.list };
}
