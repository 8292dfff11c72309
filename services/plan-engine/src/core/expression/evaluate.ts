import { FORBIDDEN_PATH_SEGMENTS, type ComparisonOperator, type Expression, type Operand } from './ast.js';

/** What a condition can see: the step's confidence and its submitted result. */
export interface EvaluationContext {
  readonly confidence?: number | null;
  readonly result?: unknown;
}

/** Marks a value that is not there (missing path, absent confidence, non-JSON value). */
const MISSING = Symbol('missing');
type Scalar = number | string | boolean;

/**
 * Evaluates a parsed expression. Total: it never throws and always returns a boolean, because a
 * branching rule must not break a result submission. The rules that make it total:
 *
 * - A comparison is true only when both sides are present scalars of the same type (number,
 *   string or boolean). A missing path, an absent confidence, `null`, an object or an array, or
 *   two different types make the comparison false, for every operator including `!=`.
 *   (`!(...)` is the way to say "not known to be true".)
 * - Numbers and strings support all six operators (strings compare by UTF-16 code units);
 *   booleans only `==` and `!=`.
 * - A bare `result.path` holds exactly when the value is the boolean `true`.
 * - Paths read own properties only (`Object.hasOwn`), never the prototype chain, and refuse
 *   `__proto__`, `constructor` and `prototype` even in a hand-built tree. On arrays a segment is
 *   a decimal index or `length`; on strings only `length` is defined.
 */
export function evaluate(expression: Expression, context: EvaluationContext): boolean {
  switch (expression.kind) {
    case 'logical':
      return expression.op === '&&'
        ? evaluate(expression.left, context) && evaluate(expression.right, context)
        : evaluate(expression.left, context) || evaluate(expression.right, context);
    case 'not':
      return !evaluate(expression.operand, context);
    case 'compare':
      return compare(expression.op, resolve(expression.left, context), resolve(expression.right, context));
    case 'test':
      return resolve(expression.operand, context) === true;
    default:
      return false;
  }
}

function compare(op: ComparisonOperator, left: Scalar | typeof MISSING, right: Scalar | typeof MISSING): boolean {
  if (left === MISSING || right === MISSING || typeof left !== typeof right) return false;
  switch (op) {
    case '==':
      return left === right;
    case '!=':
      return left !== right;
    default:
      if (typeof left === 'boolean') return false;
      if (op === '<') return left < right;
      if (op === '<=') return left <= right;
      if (op === '>') return left > right;
      return left >= right;
  }
}

function resolve(operand: Operand, context: EvaluationContext): Scalar | typeof MISSING {
  switch (operand.kind) {
    case 'literal':
      return operand.value;
    case 'confidence':
      return asScalar(context.confidence);
    case 'result':
      return asScalar(
        operand.path.reduce<unknown>(
          (value, segment) => (value === MISSING ? MISSING : child(value, segment)),
          context.result,
        ),
      );
    default:
      return MISSING;
  }
}

function child(value: unknown, segment: string): unknown {
  if (FORBIDDEN_PATH_SEGMENTS.includes(segment)) return MISSING;
  if (Array.isArray(value)) {
    if (segment === 'length') return value.length;
    return isIndex(segment) && Number(segment) < value.length ? (value[Number(segment)] as unknown) : MISSING;
  }
  if (typeof value === 'string') return segment === 'length' ? value.length : MISSING;
  if (typeof value === 'object' && value !== null && Object.hasOwn(value, segment)) {
    return (value as Record<string, unknown>)[segment];
  }
  return MISSING;
}

/** A canonical decimal array index: `0`, `7`, `42`, never `07` or `1e3`. */
function isIndex(segment: string): boolean {
  return (
    segment.length > 0 &&
    segment.length <= 15 &&
    [...segment].every((c) => c >= '0' && c <= '9') &&
    (segment === '0' || segment[0] !== '0')
  );
}

function asScalar(value: unknown): Scalar | typeof MISSING {
  if (typeof value === 'number') return Number.isFinite(value) ? value : MISSING;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  return MISSING;
}
