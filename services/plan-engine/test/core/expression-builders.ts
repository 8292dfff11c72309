import {
  ExpressionError,
  parseExpression,
  type ComparisonOperator,
  type Expression,
  type Operand,
} from '../../src/core/index.js';

// Shared by the expression test files (expression*.test.ts): small builders so expected trees read
// like the source, and the parser's answers.

export const res = (...path: string[]): Operand => ({ kind: 'result', path });
export const lit = (value: number | string | boolean): Operand => ({ kind: 'literal', value });
export const conf: Operand = { kind: 'confidence' };
export const cmp = (left: Operand, op: ComparisonOperator, right: Operand): Expression => ({
  kind: 'compare',
  op,
  left,
  right,
});
export const is = (...path: string[]): Expression => ({ kind: 'test', operand: { kind: 'result', path } });
export const and = (left: Expression, right: Expression): Expression => ({ kind: 'logical', op: '&&', left, right });
export const or = (left: Expression, right: Expression): Expression => ({ kind: 'logical', op: '||', left, right });
export const not = (operand: Expression): Expression => ({ kind: 'not', operand });

export const ast = (source: string): Expression => parseExpression(source).ast;

/** The error parseExpression refuses `source` with (fails when it parses). */
export function parseError(source: string): ExpressionError {
  try {
    parseExpression(source);
  } catch (error) {
    if (error instanceof ExpressionError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(source)} to be refused`);
}
