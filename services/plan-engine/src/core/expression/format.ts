import type { Expression, Operand } from './ast.js';

const PRECEDENCE = { '||': 1, '&&': 2 } as const;

/**
 * Prints an expression tree back as source that parses to the same tree (used to show stored
 * conditions canonically and to property-test the parser). Parentheses appear only where the
 * tree shape needs them.
 */
export function formatExpression(expression: Expression): string {
  switch (expression.kind) {
    case 'logical': {
      const precedence = PRECEDENCE[expression.op];
      const left = formatChild(expression.left, precedence, false);
      const right = formatChild(expression.right, precedence, true);
      return `${left} ${expression.op} ${right}`;
    }
    case 'not':
      return expression.operand.kind === 'logical'
        ? `!(${formatExpression(expression.operand)})`
        : `!${formatExpression(expression.operand)}`;
    case 'compare':
      return `${formatOperand(expression.left)} ${expression.op} ${formatOperand(expression.right)}`;
    case 'test':
      return formatOperand(expression.operand);
  }
}

function formatChild(child: Expression, parentPrecedence: number, isRight: boolean): string {
  const text = formatExpression(child);
  if (child.kind !== 'logical') return text;
  const precedence = PRECEDENCE[child.op];
  // Operators associate to the left, so an equal-precedence right child needs parentheses.
  return precedence < parentPrecedence || (isRight && precedence === parentPrecedence) ? `(${text})` : text;
}

function formatOperand(operand: Operand): string {
  switch (operand.kind) {
    case 'confidence':
      return 'confidence';
    case 'result':
      return ['result', ...operand.path].join('.');
    case 'literal':
      if (typeof operand.value === 'number') {
        return operand.value < 0 ? `-${String(-operand.value)}` : String(operand.value);
      }
      return typeof operand.value === 'string' ? JSON.stringify(operand.value) : String(operand.value);
  }
}
