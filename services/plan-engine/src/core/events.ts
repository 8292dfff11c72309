import type { JsonValue, StepType } from './types.js';

/** Fields every event carries: the clock reading the shell took (the core never reads a clock) and the caller's session. */
interface EventBase {
  readonly at: Date;
  readonly sessionId?: string | null;
}

/** Fields of the `modify_plan` actions: the caller's reason, recorded on the audit row. */
interface ModifyBase extends EventBase {
  readonly rationale?: string | null;
}

export const REVIEW_DECISIONS = ['approve', 'reject', 'modify', 'skip'] as const;
export type ReviewDecision = (typeof REVIEW_DECISIONS)[number];

export interface NewStep {
  /** Minted by the shell. */
  readonly id: string;
  readonly type: StepType;
  readonly instructions: string;
  /** Insert after the step that has this order now (0 = first); omitted = append at the end. */
  readonly insertAfterOrder?: number | null;
}

/**
 * Everything that can happen to a plan, one variant per mutating tool (the five `modify_plan`
 * actions are separate variants). Read-only tools need no event.
 */
export type PlanEvent =
  /** get_next_step */
  | ({ readonly type: 'claim_next_step' } & EventBase)
  /** submit_step_result */
  | ({
      readonly type: 'submit_step_result';
      readonly stepId: string;
      readonly result: JsonValue;
      readonly confidence?: number | null;
      readonly executionReport?: JsonValue | null;
      readonly formattingNotes?: string | null;
    } & EventBase)
  /** request_user_review */
  | ({
      readonly type: 'request_review';
      readonly stepId: string;
      readonly summary: string;
      readonly questions?: readonly string[];
    } & EventBase)
  /** submit_user_decision */
  | ({
      readonly type: 'decide_review';
      readonly stepId: string;
      readonly decision: ReviewDecision;
      readonly feedback?: string | null;
    } & EventBase)
  /** modify_plan(add_steps) */
  | ({ readonly type: 'add_steps'; readonly steps: readonly NewStep[] } & ModifyBase)
  /** modify_plan(remove_step) */
  | ({ readonly type: 'remove_step'; readonly stepId: string } & ModifyBase)
  /** modify_plan(reorder_steps): every step id of the plan, in the new order. */
  | ({ readonly type: 'reorder_steps'; readonly stepIds: readonly string[] } & ModifyBase)
  /** modify_plan(update_step_instructions) */
  | ({ readonly type: 'update_step_instructions'; readonly stepId: string; readonly instructions: string } & ModifyBase)
  /** modify_plan(fail_step) */
  | ({ readonly type: 'fail_step'; readonly stepId: string; readonly reason?: string | null } & ModifyBase)
  /** Run by the shell whenever it looks at a plan (e.g. get_plan_status); flags an overdue executing plan. */
  | ({ readonly type: 'detect_stall'; readonly thresholdMs?: number } & EventBase)
  /** get_research_context with a sessionId */
  | ({ readonly type: 'resume_session'; readonly sessionId: string } & EventBase)
  /** submit_research_feedback */
  | ({
      readonly type: 'record_feedback';
      readonly feedbackId: string;
      readonly feedbackType: 'initial' | 'closing';
    } & EventBase);

export type PlanEventType = PlanEvent['type'];

export const PLAN_EVENT_TYPES = [
  'claim_next_step',
  'submit_step_result',
  'request_review',
  'decide_review',
  'add_steps',
  'remove_step',
  'reorder_steps',
  'update_step_instructions',
  'fail_step',
  'detect_stall',
  'resume_session',
  'record_feedback',
] as const satisfies readonly PlanEventType[];

/** The `modify_plan` actions: allowed only while the plan is `planning` or `executing`. */
export const MODIFY_EVENT_TYPES = [
  'add_steps',
  'remove_step',
  'reorder_steps',
  'update_step_instructions',
  'fail_step',
] as const satisfies readonly PlanEventType[];
