import type { BranchTaken } from './audit.js';
import { PlanEngineError, ExpressionError } from './errors.js';
import { evaluate } from './expression/evaluate.js';
import { parseExpression } from './expression/parser.js';
import { either } from './rules.js';
import { BRANCH_ACTIONS, type BranchAction, type BranchingCondition, type PlanStep } from './types.js';

/** A branching condition as `create_research_plan` receives it (steps named by their 1-based order). */
export interface BranchingConditionInput {
  /** Minted by the shell. */
  readonly id: string;
  readonly afterStepOrder: number;
  readonly conditionExpression: string;
  readonly ifTrueAction: BranchAction;
  readonly actionParams?: { readonly targetStepOrder?: number | null } | null;
}

/**
 * Turns wire conditions into stored ones: parses each expression (a malformed one fails with the
 * column of the problem, prefixed by the field) and resolves step orders to step ids, so later
 * reorders cannot retarget a condition. `skip_to` needs a target after its step.
 */
export function resolveConditions(
  inputs: readonly BranchingConditionInput[],
  steps: readonly PlanStep[],
): BranchingCondition[] {
  const ids = new Set<string>();
  return inputs.map((input, index) => {
    const field = `branchingConditions[${index}]`;
    if (ids.has(input.id))
      throw new PlanEngineError('INVALID_CONDITION', `${field} reuses condition id ${input.id}`, { field });
    ids.add(input.id);
    if (!BRANCH_ACTIONS.includes(input.ifTrueAction)) {
      throw new PlanEngineError('INVALID_CONDITION', `${field}.ifTrueAction must be ${either(BRANCH_ACTIONS)}`, {
        field: `${field}.ifTrueAction`,
      });
    }
    const after = stepAt(steps, input.afterStepOrder, `${field}.afterStepOrder`);
    const expression = parseAt(input.conditionExpression, `${field}.conditionExpression`);
    if (input.ifTrueAction !== 'skip_to') {
      return { id: input.id, afterStepId: after.id, expression, action: input.ifTrueAction };
    }
    const targetField = `${field}.actionParams.targetStepOrder`;
    const targetOrder = input.actionParams?.targetStepOrder;
    if (targetOrder === undefined || targetOrder === null) {
      throw new PlanEngineError('INVALID_CONDITION', `${targetField} is required for skip_to`, { field: targetField });
    }
    const target = stepAt(steps, targetOrder, targetField);
    if (target.order <= after.order) {
      throw new PlanEngineError(
        'INVALID_CONDITION',
        `${targetField} is ${target.order}; a skip_to target must come after step ${after.order}`,
        { field: targetField },
      );
    }
    return { id: input.id, afterStepId: after.id, expression, action: 'skip_to', targetStepId: target.id };
  });
}

/** Presents a stored condition in the wire shape, with orders as they are now. */
export function describeCondition(
  condition: BranchingCondition,
  steps: readonly PlanStep[],
): Omit<BranchingConditionInput, 'actionParams'> & {
  readonly actionParams: { readonly targetStepOrder: number } | null;
} {
  const orderOf = (id: string | undefined): number => steps.find((step) => step.id === id)?.order ?? 0;
  return {
    id: condition.id,
    afterStepOrder: orderOf(condition.afterStepId),
    conditionExpression: condition.expression.source,
    ifTrueAction: condition.action,
    actionParams: condition.action === 'skip_to' ? { targetStepOrder: orderOf(condition.targetStepId) } : null,
  };
}

/**
 * The branch a step's result takes: the step's conditions are tried in declaration order and
 * the first whose expression holds decides (like if / else if); `continue` therefore means
 * "proceed normally and ignore the later conditions". Returns `null` when none holds.
 * For `skip_to`, the pending steps strictly between the step and the target are listed to be
 * skipped; steps someone is already working on are left alone.
 */
export function takeBranch(
  conditions: readonly BranchingCondition[],
  step: PlanStep,
  steps: readonly PlanStep[],
): BranchTaken | null {
  const context = { confidence: step.confidence, result: step.result };
  const fired = conditions.find(
    (condition) => condition.afterStepId === step.id && evaluate(condition.expression.ast, context),
  );
  if (fired === undefined) return null;
  if (fired.action !== 'skip_to') {
    return { conditionId: fired.id, action: fired.action, targetStepId: null, skippedStepIds: [] };
  }
  const target = steps.find((candidate) => candidate.id === fired.targetStepId);
  const skippedStepIds =
    target === undefined
      ? []
      : steps
          .filter(
            (candidate) =>
              candidate.status === 'pending' && candidate.order > step.order && candidate.order < target.order,
          )
          .map((candidate) => candidate.id);
  return { conditionId: fired.id, action: 'skip_to', targetStepId: fired.targetStepId ?? null, skippedStepIds };
}

function stepAt(steps: readonly PlanStep[], order: number, field: string): PlanStep {
  const step = Number.isInteger(order) ? steps.find((candidate) => candidate.order === order) : undefined;
  if (step === undefined) {
    throw new PlanEngineError('INVALID_CONDITION', `${field} is ${order}; the plan has steps 1 to ${steps.length}`, {
      field,
    });
  }
  return step;
}

function parseAt(source: string, field: string): BranchingCondition['expression'] {
  try {
    return parseExpression(source);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    throw new ExpressionError(error.code, `${field}: ${error.message}`, error.column, { field });
  }
}
