import { effectsOf, type Effect } from './effects.js';
import type { PlanEvent, PlanEventType } from './events.js';
import type { PlanSnapshot } from './types.js';
import type { ClaimOutcome } from './transitions/change.js';
import { claimNextStep } from './transitions/claim.js';
import { addSteps, failStep, removeStep, reorderSteps, updateStepInstructions } from './transitions/modify.js';
import { detectStall, recordFeedback, resumeSession } from './transitions/observe.js';
import { decideReview, requestReview } from './transitions/review.js';
import { submitStepResult } from './transitions/submit.js';
import type { Change } from './transitions/change.js';

export interface TransitionResult {
  readonly state: PlanSnapshot;
  /** Row writes, audit rows and notifications, in the order the shell applies them. */
  readonly effects: readonly Effect[];
  /** Only for `claim_next_step`: what get_next_step answers. */
  readonly outcome?: ClaimOutcome;
}

/**
 * The plan state machine, pure in the sense of xstate's `transition`: no clock, no I/O, no
 * randomness (times and ids come in the event), the input is never mutated, and the same input
 * gives the same output. An event the current state refuses throws `PlanEngineError` (stable
 * `code`, a message naming the current state) before anything is computed, so a caller that
 * catches it still holds the unchanged snapshot.
 */
export function transition(state: PlanSnapshot, event: PlanEvent): TransitionResult {
  const change = apply(event.type, state, event);
  return {
    state: change.state,
    effects: effectsOf(state, change.state, change.audit),
    ...(change.outcome === undefined ? {} : { outcome: change.outcome }),
  };
}

/** Each event's transition, by its type. */
const TRANSITIONS: { [T in PlanEventType]: (state: PlanSnapshot, event: EventOf<T>) => Change } = {
  claim_next_step: claimNextStep,
  submit_step_result: submitStepResult,
  request_review: requestReview,
  decide_review: decideReview,
  add_steps: addSteps,
  remove_step: removeStep,
  reorder_steps: reorderSteps,
  update_step_instructions: updateStepInstructions,
  fail_step: failStep,
  detect_stall: detectStall,
  resume_session: resumeSession,
  record_feedback: recordFeedback,
};

type EventOf<T extends PlanEventType> = Extract<PlanEvent, { type: T }>;

/** The transition of `type`, looked up by the type apart so that the compiler ties it to the event's shape. */
function apply<T extends PlanEventType>(type: T, state: PlanSnapshot, event: EventOf<T>): Change {
  return TRANSITIONS[type](state, event);
}
