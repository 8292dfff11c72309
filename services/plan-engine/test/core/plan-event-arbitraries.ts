import fc from 'fast-check';
import {
  createPlan,
  PLAN_EVENT_TYPES,
  REVIEW_DECISIONS,
  type BranchingConditionInput,
  type PlanEvent,
  type PlanSnapshot,
  type PlanStep,
} from '../../src/core/index.js';

// Random plans and random events for the state machine's property test
// (transition.property.test.ts): plans of 1 to 8 steps with branching conditions, and seeds read
// against the current plan so that events mostly name steps that exist, in the status they want.

const EXPRESSIONS = [
  'confidence < 0.5',
  'result.n >= 3',
  'true',
  'false',
  'result.ok',
  'confidence >= 0.5 && result.n < 2',
  '!result.ok || confidence > 0.9',
];

export const planArb = fc
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
export const seedArb = fc.record({
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

/** Sets the clock the events are stamped with (each seed moves it forward). */
export function setClock(at: number): void {
  clock = at;
}

/** The event a seed stands for in the current state of the plan. */
export function eventFrom(seed: Seed, state: PlanSnapshot): PlanEvent {
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
