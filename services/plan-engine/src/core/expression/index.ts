export type {
  ComparisonOperator,
  ConfidenceRef,
  Expression,
  Literal,
  LogicalOperator,
  Operand,
  ParsedExpression,
  ResultPath,
} from './ast.js';
export { COMPARISON_OPERATORS, EXPRESSION_LIMITS, FORBIDDEN_PATH_SEGMENTS } from './ast.js';
export { parseExpression } from './parser.js';
export { evaluate, type EvaluationContext } from './evaluate.js';
export { formatExpression } from './format.js';
