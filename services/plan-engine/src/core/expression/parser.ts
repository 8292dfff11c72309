import { ExpressionError } from '../errors.js';
import {
  COMPARISON_OPERATORS,
  EXPRESSION_LIMITS,
  FORBIDDEN_PATH_SEGMENTS,
  type ComparisonOperator,
  type Expression,
  type Operand,
  type ParsedExpression,
} from './ast.js';
import { tokenize, type Segment, type Token } from './lexer.js';

/**
 * Parses a branching expression (recursive descent, no `eval`). Grammar, loosest first:
 *
 *     or         := and ( '||' and )*
 *     and        := unary ( '&&' unary )*
 *     unary      := '!' unary | '(' or ')' | condition
 *     condition  := operand ( ('<' | '<=' | '>' | '>=' | '==' | '!=') operand )?
 *     operand    := number | '-' number | string | 'true' | 'false' | 'confidence' | 'result' ( '.' segment )*
 *
 * So `!` negates the whole comparison that follows (`!confidence < 0.5` is `!(confidence < 0.5)`),
 * comparisons bind tighter than `&&`, and `&&` tighter than `||`. A condition without an operator
 * must be a `result` path or a boolean literal (it holds when the value is `true`). Strings take
 * single or double quotes with JSON escapes (plus `\'`). Path segments are `[A-Za-z0-9_]+`
 * (digits index arrays); `__proto__`, `constructor` and `prototype` are refused.
 *
 * Throws `ExpressionError` with the 1-based column of the problem; sources longer than
 * `EXPRESSION_LIMITS.maxLength` or nesting `(`/`!` deeper than `maxDepth` are refused too.
 */
export function parseExpression(source: string): ParsedExpression {
  if (source.length > EXPRESSION_LIMITS.maxLength) {
    throw new ExpressionError(
      'EXPRESSION_TOO_LONG',
      `Expression is ${source.length} characters long; the limit is ${EXPRESSION_LIMITS.maxLength}`,
      EXPRESSION_LIMITS.maxLength + 1,
    );
  }
  const parser = new Parser(tokenize(source));
  const ast = parser.parseOr(0);
  parser.expectEnd();
  return { source, ast };
}

const isComparison = (token: Token): token is Token & { kind: 'operator'; text: ComparisonOperator } =>
  token.kind === 'operator' && (COMPARISON_OPERATORS as readonly string[]).includes(token.text);

const isOperator = (token: Token, text: string): boolean => token.kind === 'operator' && token.text === text;

/** "<message> at column <n>[; <hint>]": the position right after what went wrong, the advice last. */
function syntaxError(message: string, column: number, hint?: string): ExpressionError {
  return new ExpressionError(
    'EXPRESSION_SYNTAX',
    `${message} at column ${column}${hint === undefined ? '' : `; ${hint}`}`,
    column,
  );
}

class Parser {
  private index = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  private get current(): Token {
    // The token list always ends with `end`, and nothing advances past it.
    return this.tokens[this.index] as Token;
  }

  private advance(): Token {
    const token = this.current;
    if (token.kind !== 'end') this.index += 1;
    return token;
  }

  parseOr(depth: number): Expression {
    let left = this.parseAnd(depth);
    while (isOperator(this.current, '||')) {
      this.advance();
      left = { kind: 'logical', op: '||', left, right: this.parseAnd(depth) };
    }
    return left;
  }

  private parseAnd(depth: number): Expression {
    let left = this.parseUnary(depth);
    while (isOperator(this.current, '&&')) {
      this.advance();
      left = { kind: 'logical', op: '&&', left, right: this.parseUnary(depth) };
    }
    return left;
  }

  private parseUnary(depth: number): Expression {
    const token = this.current;
    if (isOperator(token, '!')) {
      this.enter(depth, token);
      this.advance();
      return { kind: 'not', operand: this.parseUnary(depth + 1) };
    }
    if (isOperator(token, '(')) {
      this.enter(depth, token);
      this.advance();
      const inner = this.parseOr(depth + 1);
      if (!isOperator(this.current, ')')) throw syntaxError("Expected ')'", this.current.column);
      this.advance();
      return inner;
    }
    return this.parseCondition();
  }

  private enter(depth: number, token: Token): void {
    if (depth + 1 > EXPRESSION_LIMITS.maxDepth) {
      throw new ExpressionError(
        'EXPRESSION_TOO_DEEP',
        `Expression nests deeper than ${EXPRESSION_LIMITS.maxDepth} levels at column ${token.column}`,
        token.column,
      );
    }
  }

  private parseCondition(): Expression {
    const left = this.parseOperand();
    const operator = this.current;
    if (isComparison(operator)) {
      this.advance();
      const right = this.parseOperand();
      if (isComparison(this.current)) {
        throw syntaxError('Comparisons cannot be chained', this.current.column, "join them with '&&' or '||'");
      }
      return { kind: 'compare', op: operator.text, left, right };
    }
    if (left.kind === 'result') return { kind: 'test', operand: left };
    if (left.kind === 'literal' && typeof left.value === 'boolean')
      return { kind: 'test', operand: { kind: 'literal', value: left.value } };
    throw syntaxError('Expected a comparison operator', operator.column);
  }

  private parseOperand(): Operand {
    const token = this.advance();
    switch (token.kind) {
      case 'number':
      case 'string':
        return { kind: 'literal', value: token.value };
      case 'name':
        return this.resolveName(token);
      case 'operator':
        if (token.text === '-') {
          const next = this.advance();
          if (next.kind !== 'number') throw syntaxError("Expected a number after '-'", next.column);
          return { kind: 'literal', value: -next.value };
        }
        break;
      case 'end':
        break;
    }
    throw syntaxError('Expected a value', token.column);
  }

  private resolveName(token: Extract<Token, { kind: 'name' }>): Operand {
    const [head, ...rest] = token.segments as readonly [Segment, ...Segment[]];
    for (const segment of rest) {
      if (FORBIDDEN_PATH_SEGMENTS.includes(segment.text)) {
        throw new ExpressionError(
          'EXPRESSION_FORBIDDEN_PATH',
          `Path segment '${segment.text}' is not allowed at column ${segment.column}`,
          segment.column,
        );
      }
    }
    const firstRest = rest[0];
    if (head.text === 'result') return { kind: 'result', path: rest.map((segment) => segment.text) };
    if (firstRest !== undefined && ['confidence', 'true', 'false'].includes(head.text)) {
      throw syntaxError(`'${head.text}' has no fields`, firstRest.column - 1);
    }
    if (head.text === 'confidence') return { kind: 'confidence' };
    if (head.text === 'true' || head.text === 'false') return { kind: 'literal', value: head.text === 'true' };
    throw syntaxError(
      `Unknown name '${head.text}'`,
      token.column,
      'expected confidence, result.<path>, a number, a string, true or false',
    );
  }

  expectEnd(): void {
    const token = this.current;
    if (token.kind === 'end') return;
    if (isOperator(token, ')')) throw syntaxError("Unexpected ')'", token.column);
    throw syntaxError("Expected '&&', '||' or the end of the expression", token.column);
  }
}
