import type { ParsedExpression } from './expression/ast.js';

/**
 * The plan's stored status. `stalled` and `failed` are never derived from the steps alone:
 * `stalled` depends on the clock (see `isPlanStalled`) and `failed` records a decision
 * (a rejected review or a `fail` branch), so both live on the plan itself, as does `cancelled`
 * (cancel_plan).
 */
export const PLAN_STATUSES = [
  'planning',
  'executing',
  'awaiting_review',
  'stalled',
  'completed',
  'failed',
  'cancelled',
] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

/** Statuses a plan never leaves: every later event is refused or changes nothing. */
export const TERMINAL_PLAN_STATUSES: readonly PlanStatus[] = ['completed', 'failed', 'cancelled'];

export const STEP_STATUSES = ['pending', 'in_progress', 'awaiting_input', 'completed', 'skipped', 'failed'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

/** Step statuses with no way out: such a step never changes status again. */
export const FINISHED_STEP_STATUSES: readonly StepStatus[] = ['completed', 'skipped', 'failed'];

export const STEP_TYPES = ['search', 'extract', 'analyze', 'critique', 'synthesize', 'checkpoint', 'custom'] as const;
export type StepType = (typeof STEP_TYPES)[number];

/** A JSON value as clients send it in step results (what PostgreSQL stores as jsonb). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface PlanStep {
  /** Stable identity (a UUID minted by the shell); orders change, ids never do. */
  readonly id: string;
  /** 1-based position; the steps of a plan always carry orders 1..n without gaps. */
  readonly order: number;
  readonly type: StepType;
  readonly status: StepStatus;
  readonly instructions: string;
  /** The submitted result; `null` until a result is submitted. */
  readonly result: JsonValue | null;
  /** Self-reported confidence in [0, 1], `null` when the client gave none. */
  readonly confidence: number | null;
  /** The execution report submitted with the result (thinking, searches, tool calls…); `null` when none. */
  readonly executionReport: JsonValue | null;
  /** Output formatting notes from the step's result, gathered into the final deliverable. */
  readonly formattingNotes: string | null;
  /** Why the step failed (fail_step reason, rejected review feedback), else `null`. */
  readonly failureReason: string | null;
  /** When work on the step (last) began; `null` while nothing has started it. Drives stall detection. */
  readonly startedAt: Date | null;
  /** When the step reached completed, skipped or failed. */
  readonly completedAt: Date | null;
}

export const BRANCH_ACTIONS = ['skip_to', 'fail', 'continue'] as const;
export type BranchAction = (typeof BRANCH_ACTIONS)[number];

/**
 * A branching rule evaluated when the step `afterStepId` receives its result. Conditions point at
 * steps by id (not order), so reordering, inserting or removing other steps never retargets them.
 */
export interface BranchingCondition {
  readonly id: string;
  readonly afterStepId: string;
  readonly expression: ParsedExpression;
  readonly action: BranchAction;
  /** Set exactly when `action` is `skip_to`; always ordered after `afterStepId`. */
  readonly targetStepId?: string;
}

/**
 * Everything the transition rules need to know about one plan. The shell loads it (with row
 * locks), runs `transition`, and persists the outcome with the audit rows in one transaction.
 */
export interface PlanSnapshot {
  readonly status: PlanStatus;
  /** Sorted by `order`. */
  readonly steps: readonly PlanStep[];
  /** In declaration order, which is also evaluation order. */
  readonly conditions: readonly BranchingCondition[];
}
