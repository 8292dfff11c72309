/**
 * How the shell should report an error (it maps these to gRPC statuses); the core stays free of
 * transport concerns.
 */
export type PlanErrorKind = 'invalid_argument' | 'not_found' | 'failed_precondition';

/** Stable codes, part of the public contract: clients branch on them, so they never change meaning. */
export const PLAN_ERROR_KINDS = {
  /** The plan's status does not allow this event (including "the plan is finished"). */
  PLAN_STATE_CONFLICT: 'failed_precondition',
  /** The target step's status does not allow this event. */
  STEP_STATE_CONFLICT: 'failed_precondition',
  STEP_NOT_FOUND: 'not_found',
  /** A field breaks a plain rule (range, required, enum); `details.field` names it. */
  INVALID_ARGUMENT: 'invalid_argument',
  DUPLICATE_STEP_ID: 'invalid_argument',
  INVALID_INSERT_POSITION: 'invalid_argument',
  /** reorder_steps got something other than a permutation, or broke a skip_to condition. */
  INVALID_REORDER: 'invalid_argument',
  /** A branching condition references a missing step or an impossible target. */
  INVALID_CONDITION: 'invalid_argument',
  EXPRESSION_SYNTAX: 'invalid_argument',
  EXPRESSION_TOO_LONG: 'invalid_argument',
  EXPRESSION_TOO_DEEP: 'invalid_argument',
  /** A path segment that could reach the prototype chain (`__proto__`, `constructor`, `prototype`). */
  EXPRESSION_FORBIDDEN_PATH: 'invalid_argument',
} as const satisfies Record<string, PlanErrorKind>;

export type PlanErrorCode = keyof typeof PLAN_ERROR_KINDS;
export type ExpressionErrorCode = Extract<PlanErrorCode, `EXPRESSION_${string}`>;

/**
 * Every rule the core enforces fails with this error: a stable `code`, a message written for the
 * person who sent the request (it names the current state), and safe-to-show `details`.
 */
export class PlanEngineError extends Error {
  override readonly name: string = 'PlanEngineError';
  readonly kind: PlanErrorKind;

  constructor(
    readonly code: PlanErrorCode,
    message: string,
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.kind = PLAN_ERROR_KINDS[code];
  }
}

/** A branching expression that cannot be parsed; `column` is 1-based, pointing at the problem. */
export class ExpressionError extends PlanEngineError {
  override readonly name = 'ExpressionError';
  declare readonly code: ExpressionErrorCode;

  constructor(
    code: ExpressionErrorCode,
    message: string,
    readonly column: number,
    details: Readonly<Record<string, unknown>> = {},
  ) {
    super(code, message, { ...details, column });
  }
}
