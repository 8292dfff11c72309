import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { configureFastCheck } from './fast-check-config.js';
import { conf, is, lit, res } from './expression-builders.js';
import {
  COMPARISON_OPERATORS,
  evaluate,
  EXPRESSION_LIMITS,
  ExpressionError,
  formatExpression,
  parseExpression,
  type Expression,
  type Operand,
} from '../../src/core/index.js';

configureFastCheck();

// Properties of the expression language over generated trees and sources: formatting round-trips
// through the parser, evaluation is total, and every refusal points inside the input.

const segment = fc.oneof(
  fc
    .stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,6}$/)
    .filter((s) => !['__proto__', 'constructor', 'prototype'].includes(s)),
  fc.nat({ max: 20 }).map(String),
);
const operand: fc.Arbitrary<Operand> = fc.oneof(
  fc.constant(conf),
  fc.array(segment, { maxLength: 3 }).map((path) => res(...path)),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => lit(Object.is(n, -0) ? 0 : n)),
  fc.string({ unit: 'binary', maxLength: 8 }).map(lit),
  fc.boolean().map(lit),
);
const { expression: expressionArb } = fc.letrec<{ expression: Expression }>((tie) => ({
  expression: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({
      kind: fc.constant('compare' as const),
      op: fc.constantFrom(...COMPARISON_OPERATORS),
      left: operand,
      right: operand,
    }),
    fc.oneof(
      fc.array(segment, { maxLength: 3 }).map((path) => is(...path)),
      fc.boolean().map((value): Expression => ({ kind: 'test', operand: { kind: 'literal', value } })),
    ),
    fc.record({
      kind: fc.constant('logical' as const),
      op: fc.constantFrom('&&' as const, '||' as const),
      left: tie('expression'),
      right: tie('expression'),
    }),
    fc.record({ kind: fc.constant('not' as const), operand: tie('expression') }),
  ),
}));

describe('properties', () => {
  it('formatExpression then parseExpression gives back the same tree', () => {
    fc.assert(
      fc.property(expressionArb, (tree) => {
        const source = formatExpression(tree);
        fc.pre(source.length <= EXPRESSION_LIMITS.maxLength);
        try {
          expect(parseExpression(source).ast).toEqual(tree);
        } catch (error) {
          // Only the depth bound may stop a generated tree.
          expect(error).toMatchObject({ code: 'EXPRESSION_TOO_DEEP' });
        }
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 500) },
    );
  });

  it('evaluate is total: any parsed tree against any JSON result and confidence gives a boolean', () => {
    fc.assert(
      fc.property(expressionArb, fc.jsonValue({ maxDepth: 3 }), fc.option(fc.double()), (tree, result, confidence) => {
        expect(typeof evaluate(tree, { result, confidence })).toBe('boolean');
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 500) },
    );
  });

  it('parseExpression either parses or throws an ExpressionError pointing inside the input', () => {
    const alphabet = fc.constantFrom(...'result.confidence <>=!&|()"\'\\0123456789.-eaxtrufls_ \t#'.split(''));
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: alphabet, maxLength: 40 })), (source) => {
        try {
          parseExpression(source);
        } catch (error) {
          expect(error).toBeInstanceOf(ExpressionError);
          const { column } = error as ExpressionError;
          expect(column).toBeGreaterThanOrEqual(1);
          expect(column).toBeLessThanOrEqual(source.length + 1);
        }
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 2_000) },
    );
  });
});
