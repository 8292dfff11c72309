import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { configureFastCheck } from './fast-check-config.js';
import {
  createPlan,
  derivePlanStatus,
  isFinishedStepStatus,
  isTerminalPlanStatus,
  MODIFY_EVENT_TYPES,
  PLAN_EVENT_TYPES,
  PlanEngineError,
  progress,
  REVIEW_DECISIONS,
  transition,
  type BranchingConditionInput,
  type Effect,
  type PlanEvent,
  type PlanEventType,
  type PlanSnapshot,
  type PlanStep,
  type TransitionResult,
} from '../../src/core/index.js';

configureFastCheck();

/*
 * Random plans driven by random event sequences (valid and invalid), checking after every
 * event that the rules hold. A refused event must leave the plan as it was; any other exception
 * fails the property.
 */

const EXPRESSIONS = [
  'confidence < 0.5',
  'result.n >= 3',
  'true',
  'false',
  'result.ok',
  'confidence >= 0.5 && result.n < 2',
  '!result.ok || confidence > 0.9',
];

const planArb = fc
  .integer({ min: 1, max: 8 })
  .chain((stepCount) =>
    fc.record({
      stepCount: fc.constant(stepCount),
      conditions: fc.array(
        fc.record({
          after: fc.integer({ min: 1, max: stepCount }),
          targetOffset: fc.nat({ max: 5 }),
          action: fc.constantFrom('skip_to' as const, 'fail' as const, 'continue' as const),
          expression: fc.constantFrom(...EXPRESSIONS),
        }),
        { maxLength: 4 },
      ),
    }),
  )
  .map(({ stepCount, conditions }) => {
    const branchingConditions: BranchingConditionInput[] = conditions
      .map((c, index) => ({
        ...c,
        id: `c${index}`,
        target: c.after + 1 + (c.targetOffset % Math.max(1, stepCount - c.after)),
      }))
      .filter((c) => c.action !== 'skip_to' || c.target <= stepCount)
      .map((c) => ({
        id: c.id,
        afterStepOrder: c.after,
        conditionExpression: c.expression,
        ifTrueAction: c.action,
        ...(c.action === 'skip_to' ? { actionParams: { targetStepOrder: c.target } } : {}),
      }));
    const steps = Array.from({ length: stepCount }, (_, index) => ({
      id: `s${index + 1}`,
      type: 'search' as const,
      instructions: `Step ${index + 1}`,
    }));
    return createPlan({ steps, branchingConditions }).state;
  });

/** Raw material for one event; interpreted against the current plan so step ids usually exist. */
const seedArb = fc.record({
  // The review round trip needs several events in a row, so those events come up more often.
  type: fc.oneof(
    ...PLAN_EVENT_TYPES.map((type) => ({
      arbitrary: fc.constant(type),
      weight: ['claim_next_step', 'request_review', 'decide_review'].includes(type) ? 4 : 1,
    })),
  ),
  pick: fc.nat(),
  decision: fc.constantFrom(...REVIEW_DECISIONS),
  confidence: fc.option(fc.double({ min: 0, max: 1, noNaN: true })),
  n: fc.nat({ max: 5 }),
  ok: fc.boolean(),
  insertAfter: fc.option(fc.integer({ min: -1, max: 8 })),
  shuffle: fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
  advanceMs: fc.nat({ max: 40 * 60_000 }),
  invalid: fc.nat({ max: 9 }),
});
type Seed = typeof seedArb extends fc.Arbitrary<infer S> ? S : never;

let clock = 0;
let nextId = 0;

function eventFrom(seed: Seed, state: PlanSnapshot): PlanEvent {
  clock += seed.advanceMs;
  const at = new Date(clock);
  const steps = state.steps;
  // Mostly aim at a step in the status the event wants, so accepted events are common too.
  const wanted = { request_review: 'in_progress', decide_review: 'awaiting_input', submit_step_result: 'in_progress' }[
    seed.type as string
  ];
  const aimed = seed.pick % 4 !== 0 ? steps.find((step) => step.status === wanted) : undefined;
  const target =
    seed.invalid === 0 || steps.length === 0
      ? 'unknown-step'
      : (aimed ?? (steps[seed.pick % steps.length] as PlanStep)).id;
  switch (seed.type) {
    case 'claim_next_step':
      return { type: 'claim_next_step', at };
    case 'submit_step_result':
      return {
        type: 'submit_step_result',
        at,
        stepId: target,
        result: { n: seed.n, ok: seed.ok },
        confidence: seed.confidence,
      };
    case 'request_review':
      return { type: 'request_review', at, stepId: target, summary: seed.invalid === 1 ? '' : 'Check this' };
    case 'decide_review':
      return {
        type: 'decide_review',
        at,
        stepId: target,
        decision: seed.decision,
        feedback: seed.invalid === 1 ? null : 'Feedback',
      };
    case 'add_steps':
      return {
        type: 'add_steps',
        at,
        steps: Array.from({ length: 1 + (seed.n % 2) }, () => ({
          id: `new${(nextId += 1)}`,
          type: 'analyze' as const,
          instructions: 'Added',
          insertAfterOrder: seed.insertAfter,
        })),
      };
    case 'remove_step':
      return { type: 'remove_step', at, stepId: target };
    case 'reorder_steps': {
      const keyed = steps.map((step, index) => ({ id: step.id, key: seed.shuffle[index % seed.shuffle.length] ?? 0 }));
      const stepIds = keyed.sort((a, b) => a.key - b.key).map((entry) => entry.id);
      return { type: 'reorder_steps', at, stepIds: seed.invalid === 1 ? stepIds.slice(1) : stepIds };
    }
    case 'update_step_instructions':
      return { type: 'update_step_instructions', at, stepId: target, instructions: 'Updated' };
    case 'fail_step':
      return { type: 'fail_step', at, stepId: target, reason: 'Broken' };
    case 'detect_stall':
      return { type: 'detect_stall', at };
    case 'resume_session':
      return { type: 'resume_session', at, sessionId: 'sess' };
    case 'record_feedback':
      return {
        type: 'record_feedback',
        at,
        feedbackId: `f${(nextId += 1)}`,
        feedbackType: seed.ok ? 'initial' : 'closing',
      };
  }
}

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
        clock = Date.parse('2025-01-01T00:00:00Z');
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
