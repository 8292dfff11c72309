import type { AuditEvent } from '../audit.js';
import type { PlanSnapshot } from '../types.js';

/** What `get_next_step` answers; `next_step` names the step that was just claimed. */
export type ClaimOutcome =
  | { readonly status: 'next_step'; readonly stepId: string }
  | { readonly status: 'plan_complete' | 'plan_failed' | 'awaiting_review' | 'no_pending_steps' };

/** A handler's answer before effects are derived: the new state and the audit rows it implies. */
export interface Change {
  readonly state: PlanSnapshot;
  readonly audit: readonly AuditEvent[];
  readonly outcome?: ClaimOutcome;
}

/** Nothing changes and nothing is recorded. */
export const unchanged = (state: PlanSnapshot, outcome?: ClaimOutcome): Change => ({ state, audit: [], outcome });
