import { PlanEngineError } from './errors.js';
import { derivePlanStatus, isTerminalPlanStatus } from './status.js';
import type { PlanSnapshot, PlanStatus, PlanStep, StepStatus, StepType } from './types.js';

/** Joins states for messages: "a", "a or b", "a, b or c". */
export function either(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/** Refuses the event unless the plan is in one of `allowed`; `tool` names what the caller invoked. */
export function requirePlanStatus(state: PlanSnapshot, allowed: readonly PlanStatus[], tool: string): void {
  if (allowed.includes(state.status)) return;
  throw new PlanEngineError(
    'PLAN_STATE_CONFLICT',
    `Plan is ${state.status}; ${tool} needs a plan that is ${either(allowed)}`,
    { planStatus: state.status, allowed },
  );
}

export function findStep(state: PlanSnapshot, stepId: string): PlanStep {
  const step = state.steps.find((candidate) => candidate.id === stepId);
  if (step === undefined)
    throw new PlanEngineError('STEP_NOT_FOUND', `Step ${stepId} not found in this plan`, { stepId });
  return step;
}

/** Refuses the event unless the step is in one of `allowed`; `rule` completes "Step 3 is completed; …". */
export function requireStepStatus(step: PlanStep, allowed: readonly StepStatus[], rule: string): void {
  if (allowed.includes(step.status)) return;
  throw new PlanEngineError('STEP_STATE_CONFLICT', `Step ${step.order} is ${step.status}; ${rule}`, {
    stepId: step.id,
    stepOrder: step.order,
    stepStatus: step.status,
    allowed,
  });
}

export function invalidArgument(field: string, message: string): PlanEngineError {
  return new PlanEngineError('INVALID_ARGUMENT', message, { field });
}

export function requireText(field: string, value: string | null | undefined): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalidArgument(field, `${field} must not be empty`);
  return value;
}

/**
 * The status a non-finished plan has after its steps changed: the derived status (so a stalled
 * plan that sees activity is executing again). Finished plans keep theirs.
 */
export function settleStatus(current: PlanStatus, steps: readonly PlanStep[]): PlanStatus {
  return isTerminalPlanStatus(current) ? current : derivePlanStatus(steps);
}

/** Replaces the step with the same id. */
export function replaceStep(steps: readonly PlanStep[], updated: PlanStep): PlanStep[] {
  return steps.map((step) => (step.id === updated.id ? updated : step));
}

/** Reassigns orders 1..n following the array order. Unchanged steps keep their object identity. */
export function renumber(steps: readonly PlanStep[]): PlanStep[] {
  return steps.map((step, index) => (step.order === index + 1 ? step : { ...step, order: index + 1 }));
}

/** A step as it enters a plan (creation or add_steps): pending, nothing recorded yet. */
export function pendingStep(
  step: { readonly id: string; readonly type: StepType; readonly instructions: string },
  order: number,
): PlanStep {
  return {
    id: step.id,
    order,
    type: step.type,
    status: 'pending',
    instructions: step.instructions,
    result: null,
    confidence: null,
    executionReport: null,
    formattingNotes: null,
    failureReason: null,
    startedAt: null,
    completedAt: null,
  };
}
