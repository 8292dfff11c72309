import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { COMPARISON_OPERATORS, evaluate } from '../../src/core/index.js';
import { ast, cmp, lit, parseError, res } from './expression-builders.js';

// evaluate: what a condition makes of a step's result and confidence (missing paths, absent
// confidence and mixed types make a comparison false), and no path reaches the prototype chain.

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
