import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { configureFastCheck } from './fast-check-config.js';
import {
  COMPARISON_OPERATORS,
  evaluate,
  EXPRESSION_LIMITS,
  ExpressionError,
  formatExpression,
  parseExpression,
  type ComparisonOperator,
  type Expression,
  type Operand,
  type PlanErrorCode,
} from '../../src/core/index.js';

configureFastCheck();

// Small builders so expected trees read like the source.
const res = (...path: string[]): Operand => ({ kind: 'result', path });
const lit = (value: number | string | boolean): Operand => ({ kind: 'literal', value });
const conf: Operand = { kind: 'confidence' };
const cmp = (left: Operand, op: ComparisonOperator, right: Operand): Expression => ({
  kind: 'compare',
  op,
  left,
  right,
});
const is = (...path: string[]): Expression => ({ kind: 'test', operand: { kind: 'result', path } });
const and = (left: Expression, right: Expression): Expression => ({ kind: 'logical', op: '&&', left, right });
const or = (left: Expression, right: Expression): Expression => ({ kind: 'logical', op: '||', left, right });
const not = (operand: Expression): Expression => ({ kind: 'not', operand });

const ast = (source: string): Expression => parseExpression(source).ast;

function parseError(source: string): ExpressionError {
  try {
    parseExpression(source);
  } catch (error) {
    if (error instanceof ExpressionError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(source)} to be refused`);
}

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

describe('no prototype access', () => {
  it.each([
    ['result.__proto__.polluted == 1', '__proto__', 8],
    ['result.constructor == 1', 'constructor', 8],
    ['result.a.prototype == 1', 'prototype', 10],
    ['result.constructor.prototype.x == 1', 'constructor', 8],
    ['confidence > 0 && result.x.__proto__', '__proto__', 28],
  ])('refuses %s when parsing', (source, segment, column) => {
    const error = parseError(source);
    expect(error).toMatchObject({
      code: 'EXPRESSION_FORBIDDEN_PATH',
      column,
      message: `Path segment '${segment}' is not allowed at column ${column}`,
    });
  });

  it('reads own properties only, so inherited values are invisible', () => {
    const inherited = Object.create({ score: 5 }) as Record<string, unknown>;
    expect(evaluate(ast('result.score == 5'), { result: inherited })).toBe(false);
    expect(evaluate(ast('result.toString != "x"'), { result: {} })).toBe(false);
    expect(evaluate(ast('result.hasOwnProperty == true'), { result: {} })).toBe(false);
    expect(evaluate(ast('result.length == 0'), { result: {} })).toBe(false);
  });

  it('refuses forbidden segments when evaluating a hand-built tree too, even as own JSON keys', () => {
    const result: unknown = JSON.parse('{"__proto__": {"x": 1}, "constructor": {"x": 1}}');
    for (const segment of ['__proto__', 'constructor', 'prototype']) {
      expect(evaluate(cmp(res(segment, 'x'), '==', lit(1)), { result })).toBe(false);
      expect(evaluate(cmp(res(segment, 'x'), '!=', lit(2)), { result })).toBe(false);
    }
  });

  it('is implemented without eval or Function', () => {
    const dir = new URL('../../src/core/expression/', import.meta.url);
    for (const file of readdirSync(dir)) {
      const text = readFileSync(new URL(file, dir), 'utf8');
      expect(text).not.toMatch(/\beval\s*\(|\bFunction\s*\(/);
    }
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

describe('evaluate', () => {
  const result = {
    sources: { count: 7, list: ['a', 'b'] },
    title: 'Quarry',
    verified: true,
    draft: 'true',
    empty: null,
    zero: 0,
  };
  const holds = (source: string, confidence: number | null = 0.8): boolean =>
    evaluate(ast(source), { confidence, result });

  it.each([
    ['result.sources.count >= 5 && confidence > 0.5', true],
    ['result.sources.count >= 5 && confidence > 0.9', false],
    ['result.sources.count < 5 || confidence == 0.8', true],
    ['result.sources.list.length == 2', true],
    ['result.sources.list.1 == "b"', true],
    ['result.sources.list.2 == "c"', false],
    ['result.sources.list.01 == "b"', false],
    ['result.title.length == 6', true],
    ['result.title < "Z" && result.title > "A"', true],
    ['result.verified', true],
    ['result.verified == true && result.verified != false', true],
    ['result.zero == 0', true],
    ['!result.missing', true],
  ])('%s → %s', (source, expected) => {
    expect(holds(source)).toBe(expected);
  });

  it('makes every comparison with a missing path false, whatever the operator', () => {
    for (const op of COMPARISON_OPERATORS) {
      expect(holds(`result.nope ${op} 1`)).toBe(false);
      expect(holds(`result.sources.count.deeper ${op} 1`)).toBe(false);
      expect(holds(`result.title.x ${op} "a"`)).toBe(false);
    }
    expect(evaluate(ast('result.a == 1'), { confidence: 0.5 })).toBe(false);
  });

  it('makes every comparison with an absent confidence false', () => {
    for (const op of COMPARISON_OPERATORS) expect(holds(`confidence ${op} 0.5`, null)).toBe(false);
  });

  it('makes comparisons across types false, != included', () => {
    expect(holds('result.sources.count == "7"')).toBe(false);
    expect(holds('result.sources.count != "7"')).toBe(false);
    expect(holds('result.draft == true')).toBe(false);
    expect(holds('result.draft')).toBe(false); // a bare path holds only for the boolean true
    expect(holds('result.empty == 0')).toBe(false);
    expect(holds('result.sources == 1')).toBe(false);
    expect(holds('result.sources.list != "a"')).toBe(false);
  });

  it('does not order booleans', () => {
    expect(holds('result.verified > false')).toBe(false);
    expect(holds('result.verified >= true')).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

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
