import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { configureFastCheck } from './fast-check-config.js';
import { eventFrom, planArb, seedArb, setClock } from './plan-event-arbitraries.js';
import {
  derivePlanStatus,
  isFinishedStepStatus,
  isTerminalPlanStatus,
  MODIFY_EVENT_TYPES,
  PLAN_EVENT_TYPES,
  PlanEngineError,
  progress,
  transition,
  type Effect,
  type PlanEvent,
  type PlanEventType,
  type PlanSnapshot,
  type TransitionResult,
} from '../../src/core/index.js';

configureFastCheck();

/*
 * Random plans driven by random event sequences (valid and invalid, see
 * plan-event-arbitraries.ts), checking after every event that the rules hold. A refused event
 * must leave the plan as it was; any other exception fails the property.
 */

/** Applies the effect list's row writes to `before`, as the shell would. */
function replay(before: PlanSnapshot, effects: readonly Effect[]): PlanSnapshot {
  let status = before.status;
  const steps = new Map(before.steps.map((step) => [step.id, step]));
  let conditions = [...before.conditions];
  for (const effect of effects) {
    if (effect.kind === 'set_plan_status') status = effect.status;
    if (effect.kind === 'insert_step' || effect.kind === 'update_step') steps.set(effect.step.id, effect.step);
    if (effect.kind === 'delete_step') steps.delete(effect.stepId);
    if (effect.kind === 'insert_condition') conditions.push(effect.condition);
    if (effect.kind === 'delete_condition') conditions = conditions.filter((c) => c.id !== effect.conditionId);
  }
  return { status, steps: [...steps.values()].sort((a, b) => a.order - b.order), conditions };
}

/** The audit rows a change implies, read off the before/after difference alone. */
function impliedAudit(before: PlanSnapshot, event: PlanEvent, after: PlanSnapshot): string[] {
  const previous = new Map(before.steps.map((step) => [step.id, step]));
  const rows: string[] = [];
  for (const step of after.steps) {
    const old = previous.get(step.id);
    if (old === undefined || old.status === step.status) continue;
    if (old.status === 'pending' && (step.status === 'in_progress' || step.status === 'completed'))
      rows.push(`step_started:${step.id}`);
    if (step.status === 'completed') rows.push(`step_completed:${step.id}`);
    if (step.status === 'failed') rows.push(`step_failed:${step.id}`);
  }
  if (before.status !== after.status) rows.push('plan_status_changed:-');
  if (event.type === 'request_review' || event.type === 'decide_review') rows.push(`user_reviewed:${event.stepId}`);
  if ((MODIFY_EVENT_TYPES as readonly string[]).includes(event.type)) rows.push('plan_modified:*');
  if (event.type === 'resume_session') rows.push('session_resumed:-');
  if (event.type === 'record_feedback') rows.push('feedback_recorded:-');
  return rows.sort();
}

function recordedAudit(effects: readonly Effect[]): string[] {
  return effects
    .flatMap((effect) => (effect.kind === 'append_audit' ? [effect.event] : []))
    .map((event) => `${event.type}:${event.type === 'plan_modified' ? '*' : (event.stepId ?? '-')}`)
    .sort();
}

const successes = new Map<PlanEventType, number>();
const refusals = new Map<string, number>();

function checkInvariants(
  before: PlanSnapshot,
  event: PlanEvent,
  { state: after, effects, outcome }: TransitionResult,
): void {
  // Shape: orders 1..n in array order, unique ids, conditions on existing steps, skip_to forwards.
  expect(after.steps.map((step) => step.order)).toEqual(after.steps.map((_, index) => index + 1));
  expect(new Set(after.steps.map((step) => step.id)).size).toBe(after.steps.length);
  const orderOf = new Map(after.steps.map((step) => [step.id, step.order]));
  for (const condition of after.conditions) {
    expect(orderOf.has(condition.afterStepId)).toBe(true);
    if (condition.action === 'skip_to')
      expect(orderOf.get(condition.targetStepId ?? '') ?? 0).toBeGreaterThan(orderOf.get(condition.afterStepId) ?? 0);
  }

  // Progress never decreases, except when steps are added (a removal can only raise it).
  if (event.type !== 'add_steps') expect(progress(after.steps)).toBeGreaterThanOrEqual(progress(before.steps) - 1e-9);

  // Terminal plan states are final: nothing about the plan changes any more.
  if (isTerminalPlanStatus(before.status)) {
    expect(after).toBe(before);
    expect(effects.some((effect) => effect.kind !== 'append_audit')).toBe(false);
  }

  // At most one step enters in_progress per event; a claim moves exactly the step it names.
  const wasInProgress = new Set(before.steps.filter((step) => step.status === 'in_progress').map((step) => step.id));
  const entered = after.steps
    .filter((step) => step.status === 'in_progress' && !wasInProgress.has(step.id))
    .map((step) => step.id);
  expect(entered.length).toBeLessThanOrEqual(1);
  if (event.type === 'claim_next_step')
    expect(entered).toEqual(outcome?.status === 'next_step' ? [outcome.stepId] : []);

  // Finished steps stay as they are; no step ever returns to pending; new steps start pending.
  const previous = new Map(before.steps.map((step) => [step.id, step]));
  for (const step of after.steps) {
    const old = previous.get(step.id);
    if (old === undefined) expect(step.status).toBe('pending');
    else if (isFinishedStepStatus(old.status)) expect(step).toEqual({ ...old, order: step.order });
    else if (old.status !== 'pending') expect(step.status).not.toBe('pending');
  }
  for (const old of before.steps) if (!orderOf.has(old.id)) expect(old.status).toBe('pending');

  // The stored status agrees with the steps, spelled out from first principles...
  const anyAwaiting = after.steps.some((step) => step.status === 'awaiting_input');
  const allFinished = after.steps.length > 0 && after.steps.every((step) => isFinishedStepStatus(step.status));
  const anyStarted = after.steps.some((step) => step.startedAt !== null);
  if (!isTerminalPlanStatus(after.status)) {
    expect(allFinished).toBe(false);
    expect(after.status === 'awaiting_review').toBe(anyAwaiting);
    expect(after.status === 'planning').toBe(!anyStarted);
  }
  if (after.status === 'completed') expect(allFinished).toBe(true);
  // ...and is the derived one, except stalled (derives executing) and failed (a decision).
  const derived = derivePlanStatus(after.steps);
  if (after.status === 'stalled') expect(derived).toBe('executing');
  else if (after.status !== 'failed') expect(after.status).toBe(derived);
  if (after.status === 'stalled' && before.status !== 'stalled') expect(event.type).toBe('detect_stall');

  // Exactly the implied audit rows; the writes reproduce the new state; one notify iff something was written.
  expect(recordedAudit(effects)).toEqual(impliedAudit(before, event, after));
  expect(replay(before, effects)).toEqual(after);
  const wrote = effects.some((effect) => effect.kind !== 'append_audit' && effect.kind !== 'notify');
  expect(wrote).toBe(JSON.stringify(after) !== JSON.stringify(before));
  expect(effects.filter((effect) => effect.kind === 'notify')).toHaveLength(wrote ? 1 : 0);
  if (wrote) expect(effects.at(-1)?.kind).toBe('notify');
}

describe('random event sequences', () => {
  it('keep every invariant of the state machine', () => {
    fc.assert(
      fc.property(planArb, fc.array(seedArb, { minLength: 5, maxLength: 60 }), (initial, seeds) => {
        setClock(Date.parse('2025-01-01T00:00:00Z'));
        let state = initial;
        for (const seed of seeds) {
          const event = eventFrom(seed, state);
          let result: TransitionResult;
          try {
            result = transition(state, event);
          } catch (error) {
            // A refusal is a typed PlanEngineError and the caller keeps the old state.
            expect(error).toBeInstanceOf(PlanEngineError);
            const { code } = error as PlanEngineError;
            refusals.set(`${event.type}:${code}`, (refusals.get(`${event.type}:${code}`) ?? 0) + 1);
            continue;
          }
          checkInvariants(state, event, result);
          successes.set(event.type, (successes.get(event.type) ?? 0) + 1);
          state = result.state;
        }
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 400) },
    );
  });

  it('actually exercised every event, accepted and refused (the property above is not vacuous)', () => {
    if (process.env.SHOW_STATS) console.log(Object.fromEntries(successes), Object.fromEntries(refusals));
    for (const type of PLAN_EVENT_TYPES)
      expect({ type, accepted: (successes.get(type) ?? 0) > 20 }).toEqual({ type, accepted: true });
    for (const code of [
      'PLAN_STATE_CONFLICT',
      'STEP_STATE_CONFLICT',
      'STEP_NOT_FOUND',
      'INVALID_REORDER',
      'INVALID_INSERT_POSITION',
    ]) {
      expect([...refusals.keys()].some((key) => key.endsWith(`:${code}`))).toBe(true);
    }
  });
});
