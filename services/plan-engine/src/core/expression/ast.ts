/**
 * The syntax tree of a branching expression. Plain JSON data, so the shell can store it next to
 * the source, and a parsed tree is all `evaluate` ever needs.
 */
export type Expression =
  | { readonly kind: 'logical'; readonly op: LogicalOperator; readonly left: Expression; readonly right: Expression }
  | { readonly kind: 'not'; readonly operand: Expression }
  | { readonly kind: 'compare'; readonly op: ComparisonOperator; readonly left: Operand; readonly right: Operand }
  /** A bare `result.path` or `true`/`false` used as a condition: true exactly when the value is the boolean `true`. */
  | { readonly kind: 'test'; readonly operand: ResultPath | Literal<boolean> };

export type Operand = Literal | ConfidenceRef | ResultPath;

export interface Literal<T extends number | string | boolean = number | string | boolean> {
  readonly kind: 'literal';
  readonly value: T;
}

/** The step's self-reported confidence (a number in [0, 1], possibly absent). */
export interface ConfidenceRef {
  readonly kind: 'confidence';
}

/** `result` followed by zero or more dotted segments, e.g. `result.sources.count` → ['sources', 'count']. */
export interface ResultPath {
  readonly kind: 'result';
  readonly path: readonly string[];
}

export const COMPARISON_OPERATORS = ['<', '<=', '>', '>=', '==', '!='] as const;
export type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number];
export type LogicalOperator = '&&' | '||';

/** A parsed expression together with the text it came from (kept for display and auditing). */
export interface ParsedExpression {
  readonly source: string;
  readonly ast: Expression;
}

/** Path segments that could reach an object's prototype chain; refused when parsing and when evaluating. */
export const FORBIDDEN_PATH_SEGMENTS: readonly string[] = ['__proto__', 'constructor', 'prototype'];

/** Upper bounds that keep parsing and evaluation cheap and the recursion shallow. */
export const EXPRESSION_LIMITS = { maxLength: 1_000, maxDepth: 32 } as const;
