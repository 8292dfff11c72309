import { auditEvent } from './audit.js';
import { effectsOf, type Effect } from './effects.js';
import { requirePlanStatus, requireText } from './rules.js';
import type { PlanSnapshot, PlanStatus } from './types.js';

export interface CancelDecision {
  /** The plan after cancelling (unchanged when it already was cancelled). */
  readonly state: PlanSnapshot;
  /** What the shell persists: the status and one plan_status_changed row; none on a repeat. */
  readonly effects: readonly Effect[];
  /** False when the plan already was cancelled: the caller answers with what was stored then. */
  readonly cancelledNow: boolean;
  readonly previousStatus: PlanStatus;
}

/**
 * cancel_plan: a plan that is not finished becomes `cancelled`, a terminal status (every later
 * change is refused by the same rules that refuse it on a completed or failed plan). Steps keep
 * their status, so the record shows where the work stopped. Cancelling a cancelled plan is not
 * an error (a client may retry) and changes nothing; a completed or failed plan is refused.
 */
export function cancelPlan(
  state: PlanSnapshot,
  event: { readonly reason: string; readonly sessionId?: string | null },
): CancelDecision {
  if (state.status === 'cancelled') {
    return { state, effects: [], cancelledNow: false, previousStatus: state.status };
  }
  requirePlanStatus(state, ['planning', 'executing', 'awaiting_review', 'stalled'], 'cancel_plan');
  const reason = requireText('reason', event.reason);
  const after: PlanSnapshot = { ...state, status: 'cancelled' };
  const audit = [
    auditEvent(
      'plan_status_changed',
      { from: state.status, to: 'cancelled', cause: 'cancel_plan', reason },
      { sessionId: event.sessionId ?? null },
    ),
  ];
  return { state: after, effects: effectsOf(state, after, audit), cancelledNow: true, previousStatus: state.status };
}
