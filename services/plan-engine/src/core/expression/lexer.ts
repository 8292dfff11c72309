import { ExpressionError } from '../errors.js';

/** Punctuation and operators, longest first so `<=` wins over `<`. */
const OPERATORS = ['<=', '>=', '==', '!=', '&&', '||', '<', '>', '!', '(', ')', '-'] as const;
export type OperatorText = (typeof OPERATORS)[number];

export interface Segment {
  readonly text: string;
  readonly column: number;
}

/** Columns are 1-based positions in UTF-16 code units (what a JavaScript string index counts). */
export type Token =
  | { readonly kind: 'number'; readonly value: number; readonly column: number }
  | { readonly kind: 'string'; readonly value: string; readonly column: number }
  /** A dotted name such as `result.sources.count`; the parser decides what it refers to. */
  | { readonly kind: 'name'; readonly segments: readonly Segment[]; readonly column: number }
  | { readonly kind: 'operator'; readonly text: OperatorText; readonly column: number }
  | { readonly kind: 'end'; readonly column: number };

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isNameStart = (c: string | undefined): boolean =>
  c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_');
const isNamePart = (c: string | undefined): boolean => isNameStart(c) || isDigit(c);
const isHexDigit = (c: string | undefined): boolean =>
  isDigit(c) || (c !== undefined && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r';

const syntaxError = (message: string, index: number): ExpressionError =>
  new ExpressionError('EXPRESSION_SYNTAX', `${message} at column ${index + 1}`, index + 1);

/** Splits an expression into tokens, ending with an `end` token; throws on any character it cannot use. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i] as string;
    if (isSpace(c)) {
      i += 1;
    } else if (isDigit(c)) {
      i = readNumber(source, i, tokens);
    } else if (c === '"' || c === "'") {
      i = readString(source, i, tokens);
    } else if (isNameStart(c)) {
      i = readName(source, i, tokens);
    } else {
      i = readOperator(source, i, tokens);
    }
  }
  tokens.push({ kind: 'end', column: source.length + 1 });
  return tokens;
}

function readNumber(source: string, start: number, tokens: Token[]): number {
  let i = start;
  const digits = (): void => {
    while (isDigit(source[i])) i += 1;
  };
  digits();
  if (source[i] === '.') {
    i += 1;
    if (!isDigit(source[i])) throw syntaxError("Expected a digit after '.'", i);
    digits();
  }
  if (source[i] === 'e' || source[i] === 'E') {
    i += 1;
    if (source[i] === '+' || source[i] === '-') i += 1;
    if (!isDigit(source[i])) throw syntaxError('Expected a digit in the exponent', i);
    digits();
  }
  if (isNamePart(source[i])) throw syntaxError(`Unexpected character '${source[i]}' after a number`, i);
  const value = Number(source.slice(start, i));
  if (!Number.isFinite(value)) throw syntaxError('Number is too large', start);
  tokens.push({ kind: 'number', value, column: start + 1 });
  return i;
}

function readString(source: string, start: number, tokens: Token[]): number {
  const quote = source[start];
  let value = '';
  let i = start + 1;
  for (;;) {
    const c = source[i];
    if (c === undefined) throw syntaxError('Unterminated string starting', start);
    if (c === quote) break;
    if (c !== '\\') {
      value += c;
      i += 1;
      continue;
    }
    const escape = source[i + 1];
    if (escape === undefined) throw syntaxError('Unterminated string starting', start);
    if (escape === 'u') {
      const hex = source.slice(i + 2, i + 6);
      if (hex.length !== 4 || ![...hex].every(isHexDigit)) throw syntaxError("Expected 4 hex digits after '\\u'", i);
      value += String.fromCharCode(Number.parseInt(hex, 16));
      i += 6;
    } else if (Object.hasOwn(SIMPLE_ESCAPES, escape)) {
      value += SIMPLE_ESCAPES[escape];
      i += 2;
    } else {
      throw syntaxError(`Unknown escape '\\${escape}'`, i);
    }
  }
  tokens.push({ kind: 'string', value, column: start + 1 });
  return i + 1;
}

function readName(source: string, start: number, tokens: Token[]): number {
  const segments: Segment[] = [];
  let i = start;
  for (;;) {
    const segmentStart = i;
    while (isNamePart(source[i])) i += 1;
    if (i === segmentStart) throw syntaxError("Expected a name or an index after '.'", i);
    segments.push({ text: source.slice(segmentStart, i), column: segmentStart + 1 });
    if (source[i] !== '.') break;
    i += 1;
  }
  tokens.push({ kind: 'name', segments, column: start + 1 });
  return i;
}

function readOperator(source: string, start: number, tokens: Token[]): number {
  const text = OPERATORS.find((op) => source.startsWith(op, start));
  if (text !== undefined) {
    tokens.push({ kind: 'operator', text, column: start + 1 });
    return start + text.length;
  }
  const c = source[start] as string;
  const hint = { '=': "; use '==' to compare", '&': "; use '&&'", '|': "; use '||'" }[c] ?? '';
  throw new ExpressionError(
    'EXPRESSION_SYNTAX',
    `Unexpected character '${c}' at column ${start + 1}${hint}`,
    start + 1,
  );
}
