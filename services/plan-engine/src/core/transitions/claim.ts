import { auditEvent } from '../audit.js';
import type { PlanEvent } from '../events.js';
import { replaceStep, settleStatus } from '../rules.js';
import { claimableStep } from '../status.js';
import type { PlanSnapshot } from '../types.js';
import { unchanged, type Change } from './change.js';
import { statusChange } from './status-change.js';

/**
 * get_next_step: never an error, always an answer. A finished plan or one waiting for a review
 * hands out nothing; otherwise the lowest pending step becomes in_progress and the plan is
 * executing (from planning or stalled). With no pending step nothing changes, so a stalled plan
 * stays stalled until some step moves.
 */
export function claimNextStep(state: PlanSnapshot, event: Extract<PlanEvent, { type: 'claim_next_step' }>): Change {
  if (state.status === 'completed') return unchanged(state, { status: 'plan_complete' });
  // A cancelled plan answers as a failed one does: the client stops.
  if (state.status === 'failed' || state.status === 'cancelled') return unchanged(state, { status: 'plan_failed' });
  if (state.status === 'awaiting_review') return unchanged(state, { status: 'awaiting_review' });

  const next = claimableStep(state.steps);
  if (next === undefined) return unchanged(state, { status: 'no_pending_steps' });

  const steps = replaceStep(state.steps, { ...next, status: 'in_progress', startedAt: event.at });
  const status = settleStatus(state.status, steps);
  return {
    state: { ...state, status, steps },
    audit: [
      auditEvent(
        'step_started',
        { stepOrder: next.order, autoAdvanced: false },
        { stepId: next.id, sessionId: event.sessionId },
      ),
      ...statusChange(state.status, status, 'claim_next_step', event.sessionId),
    ],
    outcome: { status: 'next_step', stepId: next.id },
  };
}
