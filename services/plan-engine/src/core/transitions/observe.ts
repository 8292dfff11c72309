import { auditEvent } from '../audit.js';
import type { PlanEvent } from '../events.js';
import { invalidArgument, requireText } from '../rules.js';
import { DEFAULT_STALL_THRESHOLD_MS, stalledStepIds } from '../status.js';
import type { PlanSnapshot } from '../types.js';
import { unchanged, type Change } from './change.js';
import { statusChange } from './status-change.js';

/**
 * Stall detection: an executing plan with a step in_progress for longer than the threshold
 * becomes stalled. In any other situation it is an observation that finds nothing, not an error,
 * so the shell may run it on every read. The plan leaves `stalled` when any step moves again.
 */
export function detectStall(state: PlanSnapshot, event: Extract<PlanEvent, { type: 'detect_stall' }>): Change {
  const thresholdMs = event.thresholdMs ?? DEFAULT_STALL_THRESHOLD_MS;
  if (!(Number.isFinite(thresholdMs) && thresholdMs > 0))
    throw invalidArgument('thresholdMs', `thresholdMs must be a positive number, got ${thresholdMs}`);
  if (state.status !== 'executing') return unchanged(state);
  const overdue = stalledStepIds(state.steps, event.at, thresholdMs);
  if (overdue.length === 0) return unchanged(state);
  return {
    state: { ...state, status: 'stalled' },
    audit: statusChange(state.status, 'stalled', 'stall_detected', event.sessionId, { stalledStepIds: overdue }),
  };
}

/** get_research_context with a session: recorded in any plan status, the plan itself is untouched. */
export function resumeSession(state: PlanSnapshot, event: Extract<PlanEvent, { type: 'resume_session' }>): Change {
  const sessionId = requireText('sessionId', event.sessionId);
  return { state, audit: [auditEvent('session_resumed', {}, { sessionId })] };
}

/** submit_research_feedback: recorded in any plan status (closing feedback comes after the end). */
export function recordFeedback(state: PlanSnapshot, event: Extract<PlanEvent, { type: 'record_feedback' }>): Change {
  if (event.feedbackType !== 'initial' && event.feedbackType !== 'closing') {
    throw invalidArgument('feedbackType', `feedbackType must be initial or closing, got ${String(event.feedbackType)}`);
  }
  return {
    state,
    audit: [
      auditEvent(
        'feedback_recorded',
        { feedbackId: event.feedbackId, feedbackType: event.feedbackType },
        { sessionId: event.sessionId },
      ),
    ],
  };
}
