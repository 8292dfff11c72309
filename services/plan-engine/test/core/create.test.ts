import { describe, expect, it } from '@jest/globals';
import {
  createPlan,
  ExpressionError,
  type BranchingConditionInput,
  type CreatePlanInput,
} from '../../src/core/index.js';

const steps: CreatePlanInput['steps'] = [
  { id: 'a', type: 'search', instructions: 'Find sources' },
  { id: 'b', type: 'extract', instructions: 'Extract claims' },
  { id: 'c', type: 'analyze', instructions: 'Analyze' },
  { id: 'd', type: 'synthesize', instructions: 'Write it up' },
];
const skip = (overrides: Partial<BranchingConditionInput> = {}): BranchingConditionInput => ({
  id: 'c1',
  afterStepOrder: 1,
  conditionExpression: 'result.sources.count >= 5',
  ifTrueAction: 'skip_to',
  actionParams: { targetStepOrder: 3 },
  ...overrides,
});

describe('createPlan (create_research_plan)', () => {
  it('starts planning with every step pending, orders 1..n, and conditions bound to step ids', () => {
    const { state } = createPlan({
      steps,
      branchingConditions: [
        skip(),
        { id: 'c2', afterStepOrder: 3, conditionExpression: 'confidence < 0.5', ifTrueAction: 'fail' },
      ],
    });
    expect(state.status).toBe('planning');
    expect(state.steps.map((s) => [s.id, s.order, s.status])).toEqual([
      ['a', 1, 'pending'],
      ['b', 2, 'pending'],
      ['c', 3, 'pending'],
      ['d', 4, 'pending'],
    ]);
    expect(
      state.conditions.map(({ id, afterStepId, action, targetStepId, expression }) => ({
        id,
        afterStepId,
        action,
        targetStepId,
        source: expression.source,
      })),
    ).toEqual([
      { id: 'c1', afterStepId: 'a', action: 'skip_to', targetStepId: 'c', source: 'result.sources.count >= 5' },
      { id: 'c2', afterStepId: 'c', action: 'fail', targetStepId: undefined, source: 'confidence < 0.5' },
    ]);
  });

  it('inserts every step and condition and records one plan_modified (created) row', () => {
    const { effects } = createPlan({
      steps: steps.slice(0, 2),
      branchingConditions: [skip({ actionParams: { targetStepOrder: 2 } })],
      rationale: 'Broad then deep',
      sessionId: 'sess',
    });
    expect(effects.map((e) => e.kind)).toEqual([
      'insert_step',
      'insert_step',
      'insert_condition',
      'append_audit',
      'notify',
    ]);
    expect(effects[3]).toEqual({
      kind: 'append_audit',
      event: {
        type: 'plan_modified',
        stepId: null,
        sessionId: 'sess',
        payload: { action: 'created', stepCount: 2, conditionCount: 1, rationale: 'Broad then deep' },
      },
    });
  });

  it.each([
    [{ steps: [] }, 'INVALID_ARGUMENT', 'steps must contain at least one step'],
    [
      { steps: [{ id: 'a', type: 'dance', instructions: 'x' }] },
      'INVALID_ARGUMENT',
      'steps[0].stepType must be one of search, extract, analyze, critique, synthesize, checkpoint, custom',
    ],
    [
      { steps: [{ id: 'a', type: 'search', instructions: ' ' }] },
      'INVALID_ARGUMENT',
      'steps[0].instructions must not be empty',
    ],
    [
      { steps: [...steps, { id: 'a', type: 'search', instructions: 'again' }] },
      'DUPLICATE_STEP_ID',
      'Step id a is used twice',
    ],
  ])('refuses %j (%s)', (input, code, message) => {
    expect(() => createPlan(input as CreatePlanInput)).toThrow(expect.objectContaining({ code, message }));
  });

  it.each([
    [skip({ afterStepOrder: 9 }), 'branchingConditions[0].afterStepOrder is 9; the plan has steps 1 to 4'],
    [skip({ afterStepOrder: 0 }), 'branchingConditions[0].afterStepOrder is 0; the plan has steps 1 to 4'],
    [skip({ actionParams: null }), 'branchingConditions[0].actionParams.targetStepOrder is required for skip_to'],
    [
      skip({ actionParams: { targetStepOrder: 5 } }),
      'branchingConditions[0].actionParams.targetStepOrder is 5; the plan has steps 1 to 4',
    ],
    [
      skip({ afterStepOrder: 3, actionParams: { targetStepOrder: 2 } }),
      'branchingConditions[0].actionParams.targetStepOrder is 2; a skip_to target must come after step 3',
    ],
    [
      skip({ afterStepOrder: 3, actionParams: { targetStepOrder: 3 } }),
      'branchingConditions[0].actionParams.targetStepOrder is 3; a skip_to target must come after step 3',
    ],
    [skip({ ifTrueAction: 'jump' as never }), 'branchingConditions[0].ifTrueAction must be skip_to, fail or continue'],
  ])('refuses the condition %j: %s', (condition, message) => {
    expect(() => createPlan({ steps, branchingConditions: [condition] })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONDITION', message }),
    );
  });

  it('refuses two conditions with one id', () => {
    expect(() => createPlan({ steps, branchingConditions: [skip(), skip()] })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONDITION', message: 'branchingConditions[1] reuses condition id c1' }),
    );
  });

  it('rejects a malformed expression with the field and the column of the problem', () => {
    let thrown: unknown;
    try {
      createPlan({ steps, branchingConditions: [skip(), skip({ id: 'c2', conditionExpression: 'confidence < ' })] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ExpressionError);
    expect(thrown).toMatchObject({
      code: 'EXPRESSION_SYNTAX',
      column: 14,
      message: 'branchingConditions[1].conditionExpression: Expected a value at column 14',
      details: { field: 'branchingConditions[1].conditionExpression', column: 14 },
    });
  });
});
