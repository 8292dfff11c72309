import { auditEvent, type AuditEvent } from '../audit.js';
import { REVIEW_DECISIONS, type PlanEvent } from '../events.js';
import {
  either,
  findStep,
  invalidArgument,
  replaceStep,
  requirePlanStatus,
  requireStepStatus,
  requireText,
  settleStatus,
} from '../rules.js';
import type { PlanSnapshot, PlanStatus, PlanStep } from '../types.js';
import type { Change } from './change.js';
import { statusChange } from './status-change.js';

/**
 * request_user_review: an in_progress step waits for the user (awaiting_input) and the plan stops
 * handing out work (awaiting_review). Everything is checked before anything changes.
 */
export function requestReview(state: PlanSnapshot, event: Extract<PlanEvent, { type: 'request_review' }>): Change {
  const summary = requireText('summary', event.summary);
  requirePlanStatus(state, ['executing', 'stalled', 'awaiting_review'], 'request_user_review');
  const step = findStep(state, event.stepId);
  requireStepStatus(step, ['in_progress'], 'only an in_progress step can request a review');

  const steps = replaceStep(state.steps, { ...step, status: 'awaiting_input' });
  const status = settleStatus(state.status, steps);
  return {
    state: { ...state, status, steps },
    audit: [
      auditEvent(
        'user_reviewed',
        { action: 'review_requested', summary, questions: event.questions ?? [] },
        { stepId: step.id, sessionId: event.sessionId },
      ),
      ...statusChange(state.status, status, 'request_review', event.sessionId),
    ],
  };
}

/** How a step's instructions carry the user's feedback after a `modify` decision. */
const appendFeedback = (instructions: string, feedback: string): string =>
  `${instructions}\n\nUser feedback: ${feedback}`;

/**
 * submit_user_decision on an awaiting_input step:
 * - approve → step completed (its branching conditions are not evaluated: they judge submitted
 *   results, and an approval submits none);
 * - reject → step failed and the plan failed;
 * - modify → step back to in_progress with the feedback appended to its instructions (its stall
 *   clock restarts); feedback is required;
 * - skip → step skipped.
 * Then the plan takes its derived status: executing, or completed when that was the last open
 * step, or still awaiting_review while another step waits for a decision.
 */
export function decideReview(state: PlanSnapshot, event: Extract<PlanEvent, { type: 'decide_review' }>): Change {
  if (!REVIEW_DECISIONS.includes(event.decision)) {
    throw invalidArgument('decision', `decision must be ${either(REVIEW_DECISIONS)}, got ${String(event.decision)}`);
  }
  const feedback = event.decision === 'modify' ? requireText('feedback', event.feedback) : (event.feedback ?? null);
  requirePlanStatus(state, ['awaiting_review'], 'submit_user_decision');
  const step = findStep(state, event.stepId);
  requireStepStatus(step, ['awaiting_input'], 'a decision needs a step that is awaiting_input');

  const ids = { stepId: step.id, sessionId: event.sessionId };
  const audit: AuditEvent[] = [
    auditEvent('user_reviewed', { action: 'decision_submitted', decision: event.decision, feedback }, ids),
  ];
  let decided: PlanStep;
  switch (event.decision) {
    case 'approve':
      decided = { ...step, status: 'completed', completedAt: event.at };
      audit.push(
        auditEvent(
          'step_completed',
          { stepOrder: step.order, confidence: step.confidence, via: 'review', branch: null },
          ids,
        ),
      );
      break;
    case 'reject':
      decided = { ...step, status: 'failed', failureReason: feedback ?? 'Rejected in review', completedAt: event.at };
      audit.push(
        auditEvent('step_failed', { stepOrder: step.order, reason: decided.failureReason, via: 'review' }, ids),
      );
      break;
    case 'modify':
      decided = {
        ...step,
        status: 'in_progress',
        instructions: appendFeedback(step.instructions, feedback ?? ''),
        startedAt: event.at,
      };
      break;
    case 'skip':
      decided = { ...step, status: 'skipped', completedAt: event.at };
      break;
  }
  const steps = replaceStep(state.steps, decided);
  const status: PlanStatus = event.decision === 'reject' ? 'failed' : settleStatus(state.status, steps);
  audit.push(...statusChange(state.status, status, 'decide_review', event.sessionId));
  return { state: { ...state, status, steps }, audit };
}
