import { auditEvent, type AuditEvent } from '../audit.js';
import { PlanEngineError } from '../errors.js';
import type { MODIFY_EVENT_TYPES, NewStep, PlanEvent } from '../events.js';
import {
  findStep,
  invalidArgument,
  pendingStep,
  renumber,
  replaceStep,
  requirePlanStatus,
  requireStepStatus,
  requireText,
  settleStatus,
} from '../rules.js';
import { STEP_TYPES, type PlanSnapshot, type PlanStatus, type PlanStep } from '../types.js';
import type { Change } from './change.js';
import { statusChange } from './status-change.js';

type ModifyEvent<T extends (typeof MODIFY_EVENT_TYPES)[number] = (typeof MODIFY_EVENT_TYPES)[number]> = Extract<
  PlanEvent,
  { type: T }
>;

/**
 * modify_plan works on plans still being planned or executed, never on paused or finished ones;
 * fail_step also on a stalled plan, since giving up on the stuck step is how it gets going again.
 */
function requireModifiable(state: PlanSnapshot, action: string): void {
  const statuses: PlanStatus[] =
    action === 'fail_step' ? ['planning', 'executing', 'stalled'] : ['planning', 'executing'];
  requirePlanStatus(state, statuses, `modify_plan(${action})`);
}

const modified = (
  state: PlanSnapshot,
  next: PlanSnapshot,
  event: ModifyEvent,
  stepId: string | null,
  modification: Parameters<typeof auditEvent<'plan_modified'>>[1],
  extra: AuditEvent[] = [],
): Change => ({
  state: next,
  audit: [
    auditEvent('plan_modified', modification, { stepId, sessionId: event.sessionId }),
    ...extra,
    ...statusChange(state.status, next.status, event.type, event.sessionId),
  ],
});

/**
 * add_steps: new pending steps. `insertAfterOrder` refers to the orders before this call (0 puts
 * a step first); steps without one go to the end; steps aimed at the same place keep the order
 * they were given in. Every later step shifts.
 */
export function addSteps(state: PlanSnapshot, event: ModifyEvent<'add_steps'>): Change {
  requireModifiable(state, 'add_steps');
  validateNewSteps(state, event.steps);
  const slotOf = (step: NewStep): number => step.insertAfterOrder ?? state.steps.length;
  // Orders are assigned when the merged list is renumbered below.
  const created = (step: NewStep): PlanStep => pendingStep(step, 0);
  const merged: PlanStep[] = [];
  for (let slot = 0; slot <= state.steps.length; slot += 1) {
    merged.push(...event.steps.filter((step) => slotOf(step) === slot).map(created));
    const existing = state.steps[slot];
    if (existing !== undefined) merged.push(existing);
  }
  const steps = renumber(merged);
  const added = new Set(event.steps.map((step) => step.id));
  return modified(state, { ...state, status: settleStatus(state.status, steps), steps }, event, null, {
    action: 'add_steps',
    steps: steps
      .filter((step) => added.has(step.id))
      .map((step) => ({ stepId: step.id, stepOrder: step.order, stepType: step.type })),
    rationale: event.rationale ?? null,
  });
}

function validateNewSteps(state: PlanSnapshot, steps: readonly NewStep[]): void {
  if (steps.length === 0) throw invalidArgument('steps', 'steps must contain at least one step');
  const ids = new Set(state.steps.map((step) => step.id));
  steps.forEach((step, index) => {
    const field = `steps[${index}]`;
    if (!STEP_TYPES.includes(step.type))
      throw invalidArgument(`${field}.stepType`, `${field}.stepType must be one of ${STEP_TYPES.join(', ')}`);
    requireText(`${field}.instructions`, step.instructions);
    const after = step.insertAfterOrder;
    if (
      after !== undefined &&
      after !== null &&
      !(Number.isInteger(after) && after >= 0 && after <= state.steps.length)
    ) {
      throw new PlanEngineError(
        'INVALID_INSERT_POSITION',
        `${field}.insertAfterOrder is ${after}; the plan has ${state.steps.length} steps, so it must be between 0 and ${state.steps.length}`,
        { field: `${field}.insertAfterOrder` },
      );
    }
    if (ids.has(step.id))
      throw new PlanEngineError('DUPLICATE_STEP_ID', `Step id ${step.id} is already used in this plan`, {
        field,
        stepId: step.id,
      });
    ids.add(step.id);
  });
}

/**
 * remove_step: only a pending step (work that never started leaves no trace worth keeping);
 * later steps move up. Conditions attached to the step or skipping to it go with it, since
 * they can no longer mean what they said; the audit row lists them.
 */
export function removeStep(state: PlanSnapshot, event: ModifyEvent<'remove_step'>): Change {
  requireModifiable(state, 'remove_step');
  const step = findStep(state, event.stepId);
  requireStepStatus(step, ['pending'], 'only pending steps can be removed');
  const steps = renumber(state.steps.filter((candidate) => candidate.id !== step.id));
  const dropped = state.conditions.filter(
    (condition) => condition.afterStepId === step.id || condition.targetStepId === step.id,
  );
  const conditions = state.conditions.filter((condition) => !dropped.includes(condition));
  return modified(state, { status: settleStatus(state.status, steps), steps, conditions }, event, step.id, {
    action: 'remove_step',
    stepOrder: step.order,
    droppedConditionIds: dropped.map((condition) => condition.id),
    rationale: event.rationale ?? null,
  });
}

/**
 * reorder_steps: `stepIds` must name every step of the plan exactly once. A `skip_to` target must
 * stay after its step (a jump backwards would have to reopen finished steps), so a reorder that
 * breaks that is refused.
 */
export function reorderSteps(state: PlanSnapshot, event: ModifyEvent<'reorder_steps'>): Change {
  requireModifiable(state, 'reorder_steps');
  validatePermutation(state, event.stepIds);
  const byId = new Map(state.steps.map((step) => [step.id, step]));
  const steps = renumber(event.stepIds.map((id) => byId.get(id) as PlanStep));
  const orderOf = new Map(steps.map((step) => [step.id, step.order]));
  for (const condition of state.conditions) {
    if (condition.targetStepId === undefined) continue;
    const from = orderOf.get(condition.afterStepId) ?? 0;
    const to = orderOf.get(condition.targetStepId) ?? 0;
    if (to <= from) {
      throw new PlanEngineError(
        'INVALID_REORDER',
        `stepOrder would move step ${condition.targetStepId}, the skip_to target of condition ${condition.id}, to position ${to}, not after its step ${condition.afterStepId} at position ${from}`,
        { field: 'stepOrder', conditionId: condition.id },
      );
    }
  }
  return modified(state, { ...state, steps }, event, null, {
    action: 'reorder_steps',
    previousStepIds: state.steps.map((step) => step.id),
    stepIds: steps.map((step) => step.id),
    rationale: event.rationale ?? null,
  });
}

function validatePermutation(state: PlanSnapshot, stepIds: readonly string[]): void {
  const known = new Set(state.steps.map((step) => step.id));
  const seen = new Set<string>();
  const refuse = (message: string): never => {
    throw new PlanEngineError('INVALID_REORDER', message, { field: 'stepOrder' });
  };
  for (const id of stepIds) {
    if (!known.has(id)) refuse(`stepOrder names step ${id}, which is not in this plan`);
    if (seen.has(id)) refuse(`stepOrder lists step ${id} more than once`);
    seen.add(id);
  }
  const missing = state.steps.filter((step) => !seen.has(step.id)).map((step) => step.id);
  if (missing.length > 0) refuse(`stepOrder must list every step of the plan; missing: ${missing.join(', ')}`);
}

/** update_step_instructions: only for work not yet done (pending or in_progress); history is not rewritten. */
export function updateStepInstructions(state: PlanSnapshot, event: ModifyEvent<'update_step_instructions'>): Change {
  const instructions = requireText('updatedInstructions', event.instructions);
  requireModifiable(state, 'update_step_instructions');
  const step = findStep(state, event.stepId);
  requireStepStatus(
    step,
    ['pending', 'in_progress'],
    'only pending or in_progress steps can have their instructions updated',
  );
  const steps = replaceStep(state.steps, { ...step, instructions });
  return modified(state, { ...state, steps }, event, step.id, {
    action: 'update_step_instructions',
    previousInstructions: step.instructions,
    instructions,
    rationale: event.rationale ?? null,
  });
}

/**
 * fail_step: a pending or in_progress step fails and the plan carries on (a failed step never
 * fails the plan by itself; the plan completes once nothing is left open). Recorded both as the
 * modification and as a `step_failed`, so "every step failure" is one query.
 */
export function failStep(state: PlanSnapshot, event: ModifyEvent<'fail_step'>): Change {
  requireModifiable(state, 'fail_step');
  const step = findStep(state, event.stepId);
  requireStepStatus(step, ['pending', 'in_progress'], 'only pending or in_progress steps can be failed');
  const reason = event.reason ?? null;
  const steps = replaceStep(state.steps, { ...step, status: 'failed', failureReason: reason, completedAt: event.at });
  const ids = { stepId: step.id, sessionId: event.sessionId };
  return modified(
    state,
    { ...state, status: settleStatus(state.status, steps), steps },
    event,
    step.id,
    { action: 'fail_step', reason, rationale: event.rationale ?? null },
    [auditEvent('step_failed', { stepOrder: step.order, reason, via: 'modify_plan' }, ids)],
  );
}
