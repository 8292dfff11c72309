import {
  FINISHED_STEP_STATUSES,
  TERMINAL_PLAN_STATUSES,
  type PlanStatus,
  type PlanStep,
  type StepStatus,
} from './types.js';

/** Default age after which an `in_progress` step counts as stalled: 30 minutes. */
export const DEFAULT_STALL_THRESHOLD_MS = 30 * 60_000;

export const isTerminalPlanStatus = (status: PlanStatus): boolean => TERMINAL_PLAN_STATUSES.includes(status);
export const isFinishedStepStatus = (status: StepStatus): boolean => FINISHED_STEP_STATUSES.includes(status);

/**
 * The plan status the steps alone imply, checked in this order:
 *
 * 1. `completed` — there is at least one step and every step is completed, skipped or failed.
 *    Failed steps do not fail the plan (`fail_step` says "the plan continues"); a plan fails only
 *    by decision (a rejected review or a `fail` branch), which this function cannot see.
 * 2. `awaiting_review` — some step is awaiting_input.
 * 3. `planning` — no step has ever been started (no `startedAt`), including a plan with no steps.
 * 4. `executing` — otherwise.
 *
 * It never returns `stalled` (that depends on the clock) or `failed` (a decision). For every
 * plan the transition rules produce, the stored status equals this one, except that a
 * `stalled` plan derives `executing` and a `failed` plan may derive anything.
 */
export function derivePlanStatus(steps: readonly PlanStep[]): PlanStatus {
  if (steps.length > 0 && steps.every((step) => isFinishedStepStatus(step.status))) return 'completed';
  if (steps.some((step) => step.status === 'awaiting_input')) return 'awaiting_review';
  if (steps.every((step) => step.startedAt === null)) return 'planning';
  return 'executing';
}

/** Ids of the steps that have been `in_progress` for longer than `thresholdMs` at `now`. */
export function stalledStepIds(
  steps: readonly Pick<PlanStep, 'id' | 'status' | 'startedAt'>[],
  now: Date,
  thresholdMs: number = DEFAULT_STALL_THRESHOLD_MS,
): string[] {
  return steps
    .filter(
      (step) =>
        step.status === 'in_progress' &&
        step.startedAt !== null &&
        now.getTime() - step.startedAt.getTime() > thresholdMs,
    )
    .map((step) => step.id);
}

/** True when some step has been `in_progress` for longer than `thresholdMs` (strictly) at `now`. */
export function isPlanStalled(
  steps: readonly Pick<PlanStep, 'id' | 'status' | 'startedAt'>[],
  now: Date,
  thresholdMs: number = DEFAULT_STALL_THRESHOLD_MS,
): boolean {
  return stalledStepIds(steps, now, thresholdMs).length > 0;
}

/**
 * Percentage of steps that need no more work: (completed + skipped) / total × 100, unrounded.
 * Failed steps count in the total but not as done, so a plan that completes with failed steps
 * reports less than 100. A plan with no steps has made no progress: 0.
 */
export function progress(steps: readonly Pick<PlanStep, 'status'>[]): number {
  if (steps.length === 0) return 0;
  return (doneStepCount(steps) / steps.length) * 100;
}

/** Steps that count as progress: completed or skipped (a failed step is finished, but not done). */
export const isDoneStepStatus = (status: StepStatus): boolean => status === 'completed' || status === 'skipped';

export function doneStepCount(steps: readonly Pick<PlanStep, 'status'>[]): number {
  return steps.filter((step) => isDoneStepStatus(step.status)).length;
}

/**
 * The status a plan is reported with (get_plan_status, get_research_context, list_active_plans,
 * and the stalled-plans gauge, whose SQL function states the same rule): the stored status,
 * except that an `executing` plan with a step in progress for longer than `thresholdMs` (strictly)
 * at `now` reads as `stalled`. `stalled` itself says whether such an overdue step exists in a plan
 * that is not finished; a finished plan is never stalled.
 */
export function reportedPlanStatus(
  stored: PlanStatus,
  steps: readonly Pick<PlanStep, 'id' | 'status' | 'startedAt'>[],
  now: Date,
  thresholdMs: number,
): { status: PlanStatus; stalled: boolean } {
  const stalled = !isTerminalPlanStatus(stored) && isPlanStalled(steps, now, thresholdMs);
  return { status: stored === 'executing' && stalled ? 'stalled' : stored, stalled };
}

/** The step being worked on or waiting for a review, if any (a plan shows one current step). */
export function currentStep(steps: readonly PlanStep[]): PlanStep | undefined {
  return steps.find((step) => step.status === 'in_progress' || step.status === 'awaiting_input');
}

/** The step `get_next_step` hands out: the pending step with the lowest order, if any. */
export function claimableStep(steps: readonly PlanStep[]): PlanStep | undefined {
  return steps.reduce<PlanStep | undefined>(
    (best, step) => (step.status === 'pending' && (best === undefined || step.order < best.order) ? step : best),
    undefined,
  );
}
