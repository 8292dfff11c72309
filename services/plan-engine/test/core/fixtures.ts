import {
  parseExpression,
  transition,
  type AuditEvent,
  type BranchingCondition,
  type Effect,
  type JsonValue,
  type PlanEvent,
  type PlanSnapshot,
  type PlanStatus,
  type PlanStep,
  type StepStatus,
} from '../../src/core/index.js';

const T0 = Date.parse('2025-01-01T00:00:00Z');

/** A fixed clock: `minutes(n)` is n minutes after the fixtures' epoch. */
export const minutes = (n: number): Date => new Date(T0 + n * 60_000);

/** The time events in the tables happen at (ten minutes in: nothing is stalled yet). */
export const NOW = minutes(10);

const STARTED: readonly StepStatus[] = ['in_progress', 'awaiting_input', 'completed'];

/** Step `s<order>` in `status`, with the timestamps such a step has. */
export function step(order: number, status: StepStatus, overrides: Partial<PlanStep> = {}): PlanStep {
  const finished = status === 'completed' || status === 'skipped' || status === 'failed';
  return {
    id: `s${order}`,
    order,
    type: 'search',
    status,
    instructions: `Do step ${order}`,
    result: status === 'completed' ? { done: true } : null,
    confidence: status === 'completed' ? 0.9 : null,
    executionReport: null,
    formattingNotes: null,
    failureReason: null,
    startedAt: STARTED.includes(status) ? minutes(0) : null,
    completedAt: finished ? minutes(1) : null,
    ...overrides,
  };
}

/** A plan whose steps s1..sn have the given statuses. */
export function plan(
  status: PlanStatus,
  statuses: readonly StepStatus[],
  conditions: readonly BranchingCondition[] = [],
): PlanSnapshot {
  return deepFreeze({ status, steps: statuses.map((stepStatus, index) => step(index + 1, stepStatus)), conditions });
}

export function condition(
  id: string,
  afterStepId: string,
  source: string,
  action: BranchingCondition['action'],
  targetStepId?: string,
): BranchingCondition {
  return {
    id,
    afterStepId,
    expression: parseExpression(source),
    action,
    ...(targetStepId === undefined ? {} : { targetStepId }),
  };
}

/** Frozen fixtures prove the transition never mutates its input (a write would throw in strict mode). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value) && !(value instanceof Date)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

export const statusOf = (state: PlanSnapshot, stepId: string): StepStatus | undefined =>
  state.steps.find((s) => s.id === stepId)?.status;

/** The audit rows among a transition's effects, in order. */
export const auditOf = (effects: readonly Effect[]): AuditEvent[] =>
  effects.flatMap((effect) => (effect.kind === 'append_audit' ? [effect.event] : []));

/** The state after the events, applied one after the other. */
export const run = (state: PlanSnapshot, ...events: PlanEvent[]): PlanSnapshot =>
  events.reduce((current, event) => transition(current, event).state, state);

/** submit_step_result at NOW. */
export const submit = (stepId: string, result: JsonValue, confidence?: number): PlanEvent => ({
  type: 'submit_step_result',
  at: NOW,
  stepId,
  result,
  ...(confidence === undefined ? {} : { confidence }),
});

/** get_next_step at NOW. */
export const claim: PlanEvent = { type: 'claim_next_step', at: NOW };
