// Reading PromQL without a PromQL parser: the metric names an expression reads, and whether its
// brackets pair up.

const PROMQL_KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'offset',
  'bool',
  'inf',
  'nan',
  'atan2',
]);

/**
 * The metric names a PromQL expression reads (selectors), without a PromQL parser: drop
 * strings, label matchers, range/subquery brackets, grouping clauses and Grafana variables,
 * then every identifier not followed by `(` (a function or aggregation) and not a keyword is a
 * metric name. Good enough for the expressions we write; a form it cannot read shows up as a
 * bogus name and fails the check (which is the safe direction).
 */
export function promqlMetricNames(expr: string): string[] {
  const stripped = expr
    .replace(/\$\{[^}]*\}|\$\w+/g, ' ') // Grafana variables: $__rate_interval, ${DS}
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ') // string literals
    .replace(/\{[^}]*\}/g, ' ') // label matchers
    .replace(/\[[^\]]*\]/g, ' ') // ranges and subqueries
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ') // label lists
    .replace(/\b\d+(?:ms|[smhdwy])(?:\d+(?:ms|[smhdwy]))*\b/g, ' ') // durations (after offset)
    .replace(/\b\d+(\.\d+)?(e[+-]?\d+)?\b/gi, ' '); // numbers
  const names = new Set<string>();
  for (const match of stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const name = match[0];
    const rest = stripped.slice(match.index + name.length);
    if (/^\s*\(/.test(rest)) continue; // function call or aggregation
    if (PROMQL_KEYWORDS.has(name.toLowerCase())) continue;
    names.add(name);
  }
  return [...names].sort();
}

/** Whether the (), {} and [] of an expression fail to pair up (string literals ignored). */
export function unbalancedBrackets(expr: string): boolean {
  const pairs: Record<string, string> = { ')': '(', '}': '{', ']': '[' };
  const stack: string[] = [];
  for (const ch of expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '')) {
    if ('({['.includes(ch)) stack.push(ch);
    else if (ch in pairs && stack.pop() !== pairs[ch]) return true;
  }
  return stack.length > 0;
}
