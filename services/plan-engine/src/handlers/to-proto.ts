import type { planV1 } from '@quarry/contracts';
import {
  currentStep,
  derivePlanStatus,
  doneStepCount,
  isDoneStepStatus,
  type PlanStatus,
  type PlanStep,
  progress,
  summarizeResult,
} from '../core/index.js';
import {
  auditEventTypes,
  mediaTypes,
  planStatuses,
  researchDepths,
  skillStatuses,
  stepStatuses,
  stepTypes,
} from '../enums.js';
import type { AuditRow } from '../store/audit-log.js';
import type { OutputPreferencesRow } from '../store/output-preferences.js';
import type { PlanRow } from '../store/plans.js';
import type { SkillExecutionRow } from '../store/skill-executions.js';

// The core's types and the stored rows as the proto messages PlanService answers with. Nothing
// here decides anything: progress, the current step and the derived status are the core's rules,
// and the reported status (which needs the clock) comes in already decided by the handler.

/** A status as reported at the time of the call (see the core's reportedPlanStatus). */
export interface Reported {
  status: PlanStatus;
  stalled: boolean;
}

function asObject(value: unknown): { [key: string]: unknown } | undefined {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as { [key: string]: unknown })
    : undefined;
}

export function stepOverview(step: PlanStep): planV1.StepOverview {
  return {
    stepId: step.id,
    stepOrder: step.order,
    stepType: stepTypes.valueOf(step.type),
    status: stepStatuses.valueOf(step.status),
    instructions: step.instructions,
    confidence: step.confidence ?? undefined,
    startedAt: step.startedAt ?? undefined,
    completedAt: step.completedAt ?? undefined,
  };
}

export function planStatusOf(
  plan: PlanRow,
  steps: readonly PlanStep[],
  reported: Reported,
): planV1.GetPlanStatusResponse {
  const current = currentStep(steps);
  return {
    planId: plan.id,
    name: plan.name,
    status: planStatuses.valueOf(reported.status),
    derivedStatus: planStatuses.valueOf(derivePlanStatus(steps)),
    stalled: reported.stalled,
    progress: progress(steps),
    totalSteps: steps.length,
    currentStep: current ? stepOverview(current) : undefined,
    completedSteps: steps.filter((s) => isDoneStepStatus(s.status)).map(stepOverview),
    pendingSteps: steps.filter((s) => s.status === 'pending').map(stepOverview),
    archived: plan.archived_at !== null,
  };
}

/** A plan in list_active_plans: what it is and how far it got. */
export function activePlanOf(
  plan: PlanRow,
  steps: readonly Pick<PlanStep, 'status'>[],
  reported: Reported,
): planV1.ActivePlan {
  return {
    planId: plan.id,
    name: plan.name,
    researchQuestion: plan.research_question,
    status: planStatuses.valueOf(reported.status),
    progress: progress(steps),
    totalSteps: steps.length,
    completedSteps: doneStepCount(steps),
    updatedAt: plan.updated_at,
  };
}

/** A plan in list_plans: what it is, how far it got, and whether it is archived. */
export function planListingOf(
  plan: PlanRow,
  steps: readonly Pick<PlanStep, 'status'>[],
  reported: Reported,
): planV1.PlanListing {
  return {
    ...activePlanOf(plan, steps, reported),
    archived: plan.archived_at !== null,
    createdAt: plan.created_at,
  };
}

/** The step get_next_step hands out. */
export function claimedStep(step: PlanStep): planV1.ClaimedStep {
  return {
    stepId: step.id,
    stepOrder: step.order,
    stepType: stepTypes.valueOf(step.type),
    instructions: step.instructions,
  };
}

/** A step in full, as get_research_context shows it to a session resuming the plan. */
export function stepDetail(step: PlanStep): planV1.StepDetails {
  return {
    stepId: step.id,
    stepOrder: step.order,
    stepType: stepTypes.valueOf(step.type),
    status: stepStatuses.valueOf(step.status),
    instructions: step.instructions,
    result: asObject(step.result),
    confidence: step.confidence ?? undefined,
    stepExecutionReport: asObject(step.executionReport),
    outputFormattingNotes: step.formattingNotes ?? undefined,
    failureReason: step.failureReason ?? undefined,
    startedAt: step.startedAt ?? undefined,
    completedAt: step.completedAt ?? undefined,
    resultSummary: step.result === null ? undefined : summarizeResult(step.result),
  };
}

/** An earlier step as get_step_context gives it: a bounded summary instead of the whole result. */
export function priorStep(step: PlanStep): planV1.PriorStep {
  return {
    stepId: step.id,
    stepOrder: step.order,
    stepType: stepTypes.valueOf(step.type),
    resultSummary: summarizeResult(step.result),
    confidence: step.confidence ?? undefined,
  };
}

/** What get_next_step adds once the plan is complete: the notes for the final deliverable. */
function deliverableNotes(
  plan: PlanRow,
  steps: readonly PlanStep[],
): Pick<planV1.GetNextStepResponse, 'planFormattingNotes' | 'stepFormattingNotes'> {
  return {
    planFormattingNotes: plan.plan_formatting_notes ?? undefined,
    stepFormattingNotes: steps
      .filter((s) => s.formattingNotes)
      .map((s) => ({ stepId: s.id, stepOrder: s.order, notes: s.formattingNotes! })),
  };
}

/** What the deliverable of `plan` should look like: the org's preferences (`conversation` when it set none) and the plan's and steps' notes. */
export function outputPreferencesOf(
  row: OutputPreferencesRow | undefined,
  plan: PlanRow,
  steps: readonly PlanStep[],
): planV1.OutputPreferences {
  return {
    outputMediaType: mediaTypes.valueOf((row?.output_media_type ?? 'conversation') as 'conversation'),
    outputFormattingInstructions: row?.output_formatting_instructions ?? undefined,
    ...deliverableNotes(plan, steps),
    ...(row?.default_depth ? { defaultDepth: researchDepths.valueOf(row.default_depth) } : {}),
  };
}

/** The plan as get_research_context shows it: `steps` are the ones after a resume, `reported` the status before. */
export function planDetailsOf(plan: PlanRow, steps: readonly PlanStep[], reported: Reported): planV1.PlanDetails {
  return {
    id: plan.id,
    name: plan.name,
    researchQuestion: plan.research_question,
    status: planStatuses.valueOf(reported.status),
    progress: progress(steps),
    totalSteps: steps.length,
    planDesignRationale: plan.plan_design_rationale ?? undefined,
    planFormattingNotes: plan.plan_formatting_notes ?? undefined,
    sessionId: plan.session_id ?? undefined,
    createdAt: plan.created_at,
    updatedAt: plan.updated_at,
  };
}

export function auditEventOf(row: AuditRow): planV1.AuditEvent {
  return {
    eventId: Number(row.id),
    eventType: auditEventTypes.valueOf(row.event_type),
    stepId: row.step_id ?? undefined,
    sessionId: row.session_id ?? undefined,
    eventData: eventDataOf(row.event_type, asObject(row.details)),
    createdAt: row.occurred_at,
  };
}

export function skillExecutionOf(row: SkillExecutionRow): planV1.SkillExecution {
  return {
    id: row.id,
    skillName: row.skill_name,
    status: skillStatuses.valueOf(row.status as 'started'),
    planId: row.plan_id ?? undefined,
    sessionId: row.session_id ?? undefined,
    metadata: asObject(row.metadata),
    errorMessage: row.error_message ?? undefined,
    startedAt: row.started_at,
    completedAt: row.completed_at ?? undefined,
    durationMs: row.duration_ms === null ? undefined : Number(row.duration_ms),
  };
}

/** How rows written before plan_modified and user_reviewed named their `action` (`change` / `phase`). */
const EARLIER_ACTION_NAMES: Readonly<Record<string, string>> = {
  steps_added: 'add_steps',
  step_removed: 'remove_step',
  steps_reordered: 'reorder_steps',
  instructions_updated: 'update_step_instructions',
  requested: 'review_requested',
  decided: 'decision_submitted',
};

/** The audit row's details as eventData; the log is never rewritten, so older rows are renamed on the way out. */
function eventDataOf(
  type: string,
  details: { [key: string]: unknown } | undefined,
): { [key: string]: unknown } | undefined {
  if (!details || 'action' in details) return details;
  const key = type === 'plan_modified' ? 'change' : type === 'user_reviewed' ? 'phase' : undefined;
  if (!key || typeof details[key] !== 'string') return details;
  const { [key]: earlier, ...rest } = details;
  return { action: EARLIER_ACTION_NAMES[earlier as string] ?? earlier, ...rest };
}
