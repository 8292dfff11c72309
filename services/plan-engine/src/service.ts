import type { planV1 } from '@quarry/contracts';
import type { CursorCodec } from '@quarry/cursors';
import { handlersWith } from '@quarry/grpc';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { noPlanArtifacts, type PlanArtifacts } from './artifacts.js';
import { archivePlan } from './handlers/archive-plan.js';
import { cancelPlan } from './handlers/cancel-plan.js';
import { createResearchPlan } from './handlers/create-research-plan.js';
import { deletePlan } from './handlers/delete-plan.js';
import { getNextStep } from './handlers/get-next-step.js';
import { getPlanStatus } from './handlers/get-plan-status.js';
import { getResearchContext } from './handlers/get-research-context.js';
import { getStepContext } from './handlers/get-step-context.js';
import { listActivePlans } from './handlers/list-active-plans.js';
import { listPlans } from './handlers/list-plans.js';
import { logSkillExecution } from './handlers/log-skill-execution.js';
import { modifyPlan } from './handlers/modify-plan.js';
import { getOrgOutputPreferences, setOrgOutputPreferences } from './handlers/org-output-preferences.js';
import type { PlanHandlerDeps } from './handlers/plan-transaction.js';
import { requestUserReview } from './handlers/request-user-review.js';
import { resolvePlanReference } from './handlers/resolve-plan-reference.js';
import { submitResearchFeedback } from './handlers/submit-research-feedback.js';
import { submitStepResult } from './handlers/submit-step-result.js';
import { submitUserDecision } from './handlers/submit-user-decision.js';
import { unarchivePlan } from './handlers/unarchive-plan.js';
import type { PlanChangeListener } from './plan-changes.js';
import { createPlanStatusCache } from './plan-status-cache.js';
import type { LoadedPlan } from './store/plans.js';
import type { PlanDatabase } from './store/schema.js';

export interface PlanServiceDeps {
  db: Kysely<PlanDatabase>;
  changes: PlanChangeListener;
  logger: Logger;
  stallThresholdMs: number;
  /** Seals the list rpcs' cursors (a codec of the plan engine's purpose, keyed from the identity key). */
  cursors: CursorCodec;
  /** The plan's artifacts for the context tools; none when omitted (no artifact store). */
  artifacts?: PlanArtifacts;
  now?: () => Date;
  newId?: () => string;
}

/**
 * The PlanService rpcs, one handler each (handlers/<rpc>.ts). Every handler runs in one
 * transaction under the caller's tenant (RLS); every change to a plan goes through the plan row
 * lock and the pure `transition` of core/, whose effects are persisted with their audit rows.
 */
export function createPlanService(deps: PlanServiceDeps): planV1.PlanServiceServer {
  const shared: PlanHandlerDeps = {
    db: deps.db,
    changes: deps.changes,
    // get_plan_status is the hot read (clients poll it): unchanged plans are answered from memory.
    statusCache: createPlanStatusCache<LoadedPlan>(deps.changes),
    artifacts: deps.artifacts ?? noPlanArtifacts,
    stallThresholdMs: deps.stallThresholdMs,
    cursors: deps.cursors,
    now: deps.now ?? (() => new Date()),
    newId: deps.newId ?? (() => crypto.randomUUID()),
  };
  return handlersWith(shared, {
    createResearchPlan,
    getPlanStatus,
    modifyPlan,
    listActivePlans,
    getNextStep,
    submitStepResult,
    getStepContext,
    requestUserReview,
    submitUserDecision,
    getResearchContext,
    logSkillExecution,
    submitResearchFeedback,
    listPlans,
    archivePlan,
    unarchivePlan,
    cancelPlan,
    resolvePlanReference,
    deletePlan,
    getOrgOutputPreferences,
    setOrgOutputPreferences,
  });
}
