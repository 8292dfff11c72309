import type { PlanEventType } from './events.js';
import type { BranchAction, PlanStatus } from './types.js';

export type StatusChangeCause =
  Exclude<PlanEventType, 'detect_stall'> | 'branch_condition' | 'stall_detected' | 'cancel_plan';

/** The eight business event types of `plan_audit_log`. */
export const AUDIT_EVENT_TYPES = [
  'plan_modified',
  'step_started',
  'step_completed',
  'step_failed',
  'plan_status_changed',
  'user_reviewed',
  'session_resumed',
  'feedback_recorded',
] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/** What a `plan_modified` row records (`action`: created or the modify_plan action); `rationale` is the caller's modificationRationale (or planDesignRationale). */
export type PlanModification =
  | {
      readonly action: 'created';
      readonly stepCount: number;
      readonly conditionCount: number;
      readonly rationale: string | null;
    }
  | {
      readonly action: 'add_steps';
      readonly steps: readonly { readonly stepId: string; readonly stepOrder: number; readonly stepType: string }[];
      readonly rationale: string | null;
    }
  | {
      readonly action: 'remove_step';
      readonly stepOrder: number;
      /** Conditions dropped with the step because they were attached to it or skipped to it. */
      readonly droppedConditionIds: readonly string[];
      readonly rationale: string | null;
    }
  | {
      readonly action: 'reorder_steps';
      readonly previousStepIds: readonly string[];
      readonly stepIds: readonly string[];
      readonly rationale: string | null;
    }
  | {
      readonly action: 'update_step_instructions';
      readonly previousInstructions: string;
      readonly instructions: string;
      readonly rationale: string | null;
    }
  | { readonly action: 'fail_step'; readonly reason: string | null; readonly rationale: string | null }
  /** archive_plan / unarchive_plan: the plan's flag changed, not its steps or status. */
  | { readonly action: 'archive' | 'unarchive' };

/** The branch a submitted result triggered (recorded on its `step_completed` row). */
export interface BranchTaken {
  readonly conditionId: string;
  readonly action: BranchAction;
  readonly targetStepId: string | null;
  readonly skippedStepIds: readonly string[];
}

export interface AuditPayloads {
  plan_modified: PlanModification;
  step_started: { readonly stepOrder: number; readonly autoAdvanced: boolean };
  step_completed: {
    readonly stepOrder: number;
    readonly confidence: number | null;
    /** `result`: a submitted result; `review`: an approving user decision. */
    readonly via: 'result' | 'review';
    readonly branch: BranchTaken | null;
  };
  step_failed: { readonly stepOrder: number; readonly reason: string | null; readonly via: 'modify_plan' | 'review' };
  plan_status_changed: {
    readonly from: PlanStatus;
    readonly to: PlanStatus;
    /** The event type that caused the change; `branch_condition` for a `fail` branch, `stall_detected` for a stall. */
    readonly cause: StatusChangeCause;
    /** The condition that failed the plan (cause `branch_condition`). */
    readonly conditionId?: string;
    /** The overdue steps (cause `stall_detected`). */
    readonly stalledStepIds?: readonly string[];
    /** The caller's reason (cause `cancel_plan`). */
    readonly reason?: string;
  };
  user_reviewed:
    | { readonly action: 'review_requested'; readonly summary: string; readonly questions: readonly string[] }
    | { readonly action: 'decision_submitted'; readonly decision: string; readonly feedback: string | null };
  session_resumed: Record<string, never>;
  feedback_recorded: { readonly feedbackId: string; readonly feedbackType: 'initial' | 'closing' };
}

/**
 * One row for `plan_audit_log`, minus what the shell adds (plan id, org, actor, timestamp).
 * `stepId` is the step the event is about; `sessionId` the caller's session, when given.
 */
export type AuditEvent = {
  [T in AuditEventType]: {
    readonly type: T;
    readonly stepId: string | null;
    readonly sessionId: string | null;
    readonly payload: AuditPayloads[T];
  };
}[AuditEventType];

/** Builds an audit event; keeps call sites short and the payload type checked against its event type. */
export function auditEvent<T extends AuditEventType>(
  type: T,
  payload: AuditPayloads[T],
  ids: { stepId?: string | null; sessionId?: string | null } = {},
): AuditEvent {
  return { type, stepId: ids.stepId ?? null, sessionId: ids.sessionId ?? null, payload } as AuditEvent;
}
