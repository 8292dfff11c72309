import { describe, expect, it } from '@jest/globals';
import {
  COMPARISON_OPERATORS,
  EXPRESSION_LIMITS,
  evaluate,
  parseExpression,
  type Expression,
  type PlanErrorCode,
} from '../../src/core/index.js';
import { and, ast, cmp, conf, is, lit, not, or, parseError, res } from './expression-builders.js';

// parseExpression: the trees the valid corpus parses to, the error (code, column, message) of
// each invalid source, and the length and depth bounds.

describe('parseExpression: the valid corpus', () => {
  it.each<[string, Expression]>([
    ['confidence < 0.7', cmp(conf, '<', lit(0.7))],
    [
      'result.sources.count >= 5 && confidence > 0.5',
      and(cmp(res('sources', 'count'), '>=', lit(5)), cmp(conf, '>', lit(0.5))),
    ],
    // && binds tighter than ||, both associate to the left
    ['result.a || result.b && result.c', or(is('a'), and(is('b'), is('c')))],
    ['result.a && result.b || result.c', or(and(is('a'), is('b')), is('c'))],
    ['result.a || result.b || result.c', or(or(is('a'), is('b')), is('c'))],
    ['(result.a || result.b) && result.c', and(or(is('a'), is('b')), is('c'))],
    ['((result.a))', is('a')],
    // ! negates the whole comparison that follows
    ['!confidence < 0.5', not(cmp(conf, '<', lit(0.5)))],
    ['!result.a && result.b', and(not(is('a')), is('b'))],
    ['!(result.a && result.b)', not(and(is('a'), is('b')))],
    ['!!result.a', not(not(is('a')))],
    // every comparison operator, literals on either side
    ...COMPARISON_OPERATORS.map((op): [string, Expression] => [`confidence ${op} 1`, cmp(conf, op, lit(1))]),
    ['0.5 < confidence', cmp(lit(0.5), '<', conf)],
    ['confidence >= -0.25', cmp(conf, '>=', lit(-0.25))],
    ['result.n == 1e3', cmp(res('n'), '==', lit(1000))],
    ['result.n == 2.5E-1', cmp(res('n'), '==', lit(0.25))],
    // strings: both quotes, JSON escapes plus \'
    ["result.name == 'O\\'Brien'", cmp(res('name'), '==', lit("O'Brien"))],
    ['result.name == "say \\"hi\\""', cmp(res('name'), '==', lit('say "hi"'))],
    ['result.s == "tab\\tnew\\nline\\\\ \\u00e9 \\/"', cmp(res('s'), '==', lit('tab\tnew\nline\\ é /'))],
    ["result.s != ''", cmp(res('s'), '!=', lit(''))],
    // booleans, bare paths, the whole result, array indexes, keyword-named fields
    ['result.verified == true', cmp(res('verified'), '==', lit(true))],
    ['true', { kind: 'test', operand: { kind: 'literal', value: true } }],
    ['result == "done"', cmp(res(), '==', lit('done'))],
    ['result.items.0.score > 3', cmp(res('items', '0', 'score'), '>', lit(3))],
    ['result.sources.length >= 5', cmp(res('sources', 'length'), '>=', lit(5))],
    ['result.true == result.confidence', cmp(res('true'), '==', res('confidence'))],
    ['  confidence\t<\n0.7  ', cmp(conf, '<', lit(0.7))],
  ])('%s', (source, expected) => {
    expect(parseExpression(source)).toEqual({ source, ast: expected });
  });
});

describe('parseExpression: the invalid corpus (code, column, message)', () => {
  it.each<[string, PlanErrorCode, number, string]>([
    ['', 'EXPRESSION_SYNTAX', 1, 'Expected a value at column 1'],
    ['confidence <', 'EXPRESSION_SYNTAX', 13, 'Expected a value at column 13'],
    ['confidence < 0.7 &&', 'EXPRESSION_SYNTAX', 20, 'Expected a value at column 20'],
    ['confidence < 0.7 || || true', 'EXPRESSION_SYNTAX', 21, 'Expected a value at column 21'],
    ['confidence <> 1', 'EXPRESSION_SYNTAX', 13, 'Expected a value at column 13'],
    ['!', 'EXPRESSION_SYNTAX', 2, 'Expected a value at column 2'],
    ['()', 'EXPRESSION_SYNTAX', 2, 'Expected a value at column 2'],
    ['confidence = 0.7', 'EXPRESSION_SYNTAX', 12, "Unexpected character '=' at column 12; use '==' to compare"],
    ['confidence =< 1', 'EXPRESSION_SYNTAX', 12, "Unexpected character '=' at column 12; use '==' to compare"],
    ['result.a & result.b', 'EXPRESSION_SYNTAX', 10, "Unexpected character '&' at column 10; use '&&'"],
    ['result.a | result.b', 'EXPRESSION_SYNTAX', 10, "Unexpected character '|' at column 10; use '||'"],
    ['#', 'EXPRESSION_SYNTAX', 1, "Unexpected character '#' at column 1"],
    ['confidence ≥ 0.5', 'EXPRESSION_SYNTAX', 12, "Unexpected character '≥' at column 12"],
    ['(confidence < 0.7', 'EXPRESSION_SYNTAX', 18, "Expected ')' at column 18"],
    ['confidence < 0.7)', 'EXPRESSION_SYNTAX', 17, "Unexpected ')' at column 17"],
    [
      'confidence < 0.7 confidence',
      'EXPRESSION_SYNTAX',
      18,
      "Expected '&&', '||' or the end of the expression at column 18",
    ],
    ['result.sources.count >= 5 && confidence', 'EXPRESSION_SYNTAX', 40, 'Expected a comparison operator at column 40'],
    ['0.5', 'EXPRESSION_SYNTAX', 4, 'Expected a comparison operator at column 4'],
    ['"yes" && true', 'EXPRESSION_SYNTAX', 7, 'Expected a comparison operator at column 7'],
    ['1 < 2 < 3', 'EXPRESSION_SYNTAX', 7, "Comparisons cannot be chained at column 7; join them with '&&' or '||'"],
    [
      'score > 1',
      'EXPRESSION_SYNTAX',
      1,
      "Unknown name 'score' at column 1; expected confidence, result.<path>, a number, a string, true or false",
    ],
    ['confidence.value < 1', 'EXPRESSION_SYNTAX', 11, "'confidence' has no fields at column 11"],
    ['result. == 1', 'EXPRESSION_SYNTAX', 8, "Expected a name or an index after '.' at column 8"],
    ['result.a..b', 'EXPRESSION_SYNTAX', 10, "Expected a name or an index after '.' at column 10"],
    ['confidence < .5', 'EXPRESSION_SYNTAX', 14, "Unexpected character '.' at column 14"],
    ['confidence < 1.', 'EXPRESSION_SYNTAX', 16, "Expected a digit after '.' at column 16"],
    ['confidence < 1e', 'EXPRESSION_SYNTAX', 16, 'Expected a digit in the exponent at column 16'],
    ['confidence < 5x', 'EXPRESSION_SYNTAX', 15, "Unexpected character 'x' after a number at column 15"],
    ['confidence < 1e999', 'EXPRESSION_SYNTAX', 14, 'Number is too large at column 14'],
    ['confidence < -x', 'EXPRESSION_SYNTAX', 15, "Expected a number after '-' at column 15"],
    ["result.name == 'abc", 'EXPRESSION_SYNTAX', 16, 'Unterminated string starting at column 16'],
    ['result.name == "abc\\', 'EXPRESSION_SYNTAX', 16, 'Unterminated string starting at column 16'],
    ['result.x == "a\\q"', 'EXPRESSION_SYNTAX', 15, "Unknown escape '\\q' at column 15"],
    ['result.x == "\\u12"', 'EXPRESSION_SYNTAX', 14, "Expected 4 hex digits after '\\u' at column 14"],
  ])('%j', (source, code, column, message) => {
    const error = parseError(source);
    expect({ code: error.code, column: error.column, message: error.message, kind: error.kind }).toEqual({
      code,
      column,
      message,
      kind: 'invalid_argument',
    });
  });
});

describe('bounds', () => {
  const stringOfLength = (length: number): string => `result.x == "${'a'.repeat(length - 14)}"`;

  it(`accepts up to ${EXPRESSION_LIMITS.maxLength} characters and refuses more`, () => {
    expect(stringOfLength(1_000)).toHaveLength(1_000);
    expect(() => parseExpression(stringOfLength(1_000))).not.toThrow();
    expect(parseError(stringOfLength(1_001))).toMatchObject({
      code: 'EXPRESSION_TOO_LONG',
      column: 1_001,
      message: 'Expression is 1001 characters long; the limit is 1000',
    });
  });

  it(`accepts nesting up to ${EXPRESSION_LIMITS.maxDepth} levels of ( and ! and refuses deeper`, () => {
    const parens = (depth: number): string => `${'('.repeat(depth)}true${')'.repeat(depth)}`;
    expect(() => parseExpression(parens(32))).not.toThrow();
    expect(parseError(parens(33))).toMatchObject({
      code: 'EXPRESSION_TOO_DEEP',
      column: 33,
      message: 'Expression nests deeper than 32 levels at column 33',
    });
    expect(() => parseExpression(`${'!'.repeat(32)}true`)).not.toThrow();
    expect(parseError(`${'!'.repeat(33)}true`)).toMatchObject({ code: 'EXPRESSION_TOO_DEEP', column: 33 });
    expect(parseError(`${'!('.repeat(17)}true${')'.repeat(17)}`)).toMatchObject({
      code: 'EXPRESSION_TOO_DEEP',
      column: 33,
    });
  });

  it('keeps a maximal flat chain cheap (no recursion per operand)', () => {
    const chain = Array.from({ length: 140 }, () => 'true').join('&&');
    expect(chain.length).toBeLessThanOrEqual(1_000);
    expect(evaluate(ast(chain), {})).toBe(true);
  });
});
