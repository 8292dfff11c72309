import { auditEvent } from './audit.js';
import { resolveConditions, type BranchingConditionInput } from './branching.js';
import { PlanEngineError } from './errors.js';
import { effectsOf } from './effects.js';
import { invalidArgument, pendingStep, requireText } from './rules.js';
import type { TransitionResult } from './transition.js';
import { STEP_TYPES, type PlanSnapshot, type PlanStep, type StepType } from './types.js';

export interface CreatePlanInput {
  /** In plan order; ids minted by the shell. */
  readonly steps: readonly { readonly id: string; readonly type: StepType; readonly instructions: string }[];
  readonly branchingConditions?: readonly BranchingConditionInput[];
  /** planDesignRationale, recorded on the `plan_modified` (created) row. */
  readonly rationale?: string | null;
  readonly sessionId?: string | null;
}

const EMPTY: PlanSnapshot = { status: 'planning', steps: [], conditions: [] };

/**
 * create_research_plan: the first snapshot of a plan (status planning, all steps pending) and its
 * effects (insert every step and condition, one `plan_modified` row with change `created`).
 * Every condition is parsed and checked here, so a malformed one rejects the whole plan with the
 * field and column of the problem. The plan row itself (name, question, notes) is the shell's.
 */
export function createPlan(input: CreatePlanInput): TransitionResult {
  if (input.steps.length === 0) throw invalidArgument('steps', 'steps must contain at least one step');
  const ids = new Set<string>();
  const steps = input.steps.map((step, index): PlanStep => {
    const field = `steps[${index}]`;
    if (!STEP_TYPES.includes(step.type))
      throw invalidArgument(`${field}.stepType`, `${field}.stepType must be one of ${STEP_TYPES.join(', ')}`);
    requireText(`${field}.instructions`, step.instructions);
    if (ids.has(step.id))
      throw new PlanEngineError('DUPLICATE_STEP_ID', `Step id ${step.id} is used twice`, { field, stepId: step.id });
    ids.add(step.id);
    return pendingStep(step, index + 1);
  });
  const conditions = resolveConditions(input.branchingConditions ?? [], steps);
  const state: PlanSnapshot = { status: 'planning', steps, conditions };
  const created = auditEvent(
    'plan_modified',
    {
      action: 'created',
      stepCount: steps.length,
      conditionCount: conditions.length,
      rationale: input.rationale ?? null,
    },
    { sessionId: input.sessionId },
  );
  return { state, effects: effectsOf(EMPTY, state, [created]) };
}
