import { effectsOf, type Effect } from './effects.js';
import type { PlanEvent } from './events.js';
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
  const change = apply(state, event);
  return {
    state: change.state,
    effects: effectsOf(state, change.state, change.audit),
    ...(change.outcome === undefined ? {} : { outcome: change.outcome }),
  };
}

function apply(state: PlanSnapshot, event: PlanEvent): Change {
  switch (event.type) {
    case 'claim_next_step':
      return claimNextStep(state, event);
    case 'submit_step_result':
      return submitStepResult(state, event);
    case 'request_review':
      return requestReview(state, event);
    case 'decide_review':
      return decideReview(state, event);
    case 'add_steps':
      return addSteps(state, event);
    case 'remove_step':
      return removeStep(state, event);
    case 'reorder_steps':
      return reorderSteps(state, event);
    case 'update_step_instructions':
      return updateStepInstructions(state, event);
    case 'fail_step':
      return failStep(state, event);
    case 'detect_stall':
      return detectStall(state, event);
    case 'resume_session':
      return resumeSession(state, event);
    case 'record_feedback':
      return recordFeedback(state, event);
  }
}
