import { describe, expect, it } from '@jest/globals';
import { transition, type PlanSnapshot } from '../../src/core/index.js';
import { auditOf, claim, condition, NOW, plan, run } from './fixtures.js';

describe('modify_plan', () => {
  const base = plan('executing', ['completed', 'in_progress', 'pending']);
  const add = (steps: { id: string; insertAfterOrder?: number }[], state = base): PlanSnapshot =>
    run(state, {
      type: 'add_steps',
      at: NOW,
      steps: steps.map((s) => ({ type: 'analyze', instructions: `New ${s.id}`, ...s })),
    });
  const ids = (state: PlanSnapshot): string => state.steps.map((s) => `${s.order}:${s.id}`).join(' ');

  it('add_steps inserts after the given order (0 = first), appends by default, and shifts later steps', () => {
    expect(ids(add([{ id: 'a', insertAfterOrder: 0 }]))).toBe('1:a 2:s1 3:s2 4:s3');
    expect(ids(add([{ id: 'a', insertAfterOrder: 2 }]))).toBe('1:s1 2:s2 3:a 4:s3');
    expect(ids(add([{ id: 'a' }]))).toBe('1:s1 2:s2 3:s3 4:a');
    expect(
      ids(
        add([
          { id: 'a', insertAfterOrder: 1 },
          { id: 'b' },
          { id: 'c', insertAfterOrder: 1 },
          { id: 'd', insertAfterOrder: 0 },
        ]),
      ),
    ).toBe('1:d 2:s1 3:a 4:c 5:s2 6:s3 7:b');
  });

  it('add_steps records the new steps with their final orders', () => {
    const { effects } = transition(base, {
      type: 'add_steps',
      at: NOW,
      steps: [{ id: 'a', type: 'critique', instructions: 'Critique', insertAfterOrder: 1 }],
      rationale: 'Need a critique',
    });
    expect(auditOf(effects)).toEqual([
      {
        type: 'plan_modified',
        stepId: null,
        sessionId: null,
        payload: {
          action: 'add_steps',
          steps: [{ stepId: 'a', stepOrder: 2, stepType: 'critique' }],
          rationale: 'Need a critique',
        },
      },
    ]);
    expect(
      effects.filter((e) => e.kind === 'insert_step').map((e) => (e.kind === 'insert_step' ? e.step.order : 0)),
    ).toEqual([2]);
    expect(
      effects
        .filter((e) => e.kind === 'update_step')
        .map((e) => (e.kind === 'update_step' ? `${e.step.id}@${e.step.order}` : '')),
    ).toEqual(['s2@3', 's3@4']);
  });

  it.each([
    [
      [{ id: 'a', insertAfterOrder: 4 }],
      'INVALID_INSERT_POSITION',
      'steps[0].insertAfterOrder is 4; the plan has 3 steps, so it must be between 0 and 3',
    ],
    [
      [{ id: 'a', insertAfterOrder: -1 }],
      'INVALID_INSERT_POSITION',
      'steps[0].insertAfterOrder is -1; the plan has 3 steps, so it must be between 0 and 3',
    ],
    [
      [{ id: 'a', insertAfterOrder: 1.5 }],
      'INVALID_INSERT_POSITION',
      'steps[0].insertAfterOrder is 1.5; the plan has 3 steps, so it must be between 0 and 3',
    ],
    [[{ id: 's1' }], 'DUPLICATE_STEP_ID', 'Step id s1 is already used in this plan'],
    [[{ id: 'a' }, { id: 'a' }], 'DUPLICATE_STEP_ID', 'Step id a is already used in this plan'],
    [[], 'INVALID_ARGUMENT', 'steps must contain at least one step'],
  ])('add_steps refuses %j with %s', (steps, code, message) => {
    expect(() => add(steps)).toThrow(expect.objectContaining({ code, message }));
  });

  it('remove_step compacts the orders and drops the conditions that referred to the step', () => {
    const state = plan(
      'planning',
      ['pending', 'pending', 'pending', 'pending'],
      [
        condition('from-s2', 's2', 'true', 'continue'),
        condition('to-s2', 's1', 'true', 'skip_to', 's2'),
        condition('other', 's1', 'true', 'skip_to', 's4'),
      ],
    );
    const { state: after, effects } = transition(state, { type: 'remove_step', at: NOW, stepId: 's2' });
    expect(ids(after)).toBe('1:s1 2:s3 3:s4');
    expect(after.conditions.map((c) => c.id)).toEqual(['other']);
    expect(auditOf(effects)[0]?.payload).toEqual({
      action: 'remove_step',
      stepOrder: 2,
      droppedConditionIds: ['from-s2', 'to-s2'],
      rationale: null,
    });
    expect(effects.slice(0, 3)).toEqual([
      { kind: 'delete_step', stepId: 's2' },
      { kind: 'delete_condition', conditionId: 'from-s2' },
      { kind: 'delete_condition', conditionId: 'to-s2' },
    ]);
  });

  it('removing the last open step completes an executing plan', () => {
    const { state, effects } = transition(plan('executing', ['completed', 'pending']), {
      type: 'remove_step',
      at: NOW,
      stepId: 's2',
    });
    expect(state.status).toBe('completed');
    expect(auditOf(effects).map((e) => e.type)).toEqual(['plan_modified', 'plan_status_changed']);
  });

  it('removing every step of a plan still being planned leaves an empty planning plan', () => {
    const after = run(plan('planning', ['pending']), { type: 'remove_step', at: NOW, stepId: 's1' });
    expect(after).toEqual({ status: 'planning', steps: [], conditions: [] });
    expect(transition(after, claim).outcome).toEqual({ status: 'no_pending_steps' });
  });

  it.each([
    [['s1', 's2'], 'stepOrder must list every step of the plan; missing: s3'],
    [['s1', 's2', 's3', 'x'], 'stepOrder names step x, which is not in this plan'],
    [['s1', 's2', 's2', 's3'], 'stepOrder lists step s2 more than once'],
  ])('reorder_steps refuses %j: %s', (stepIds, message) => {
    expect(() => run(base, { type: 'reorder_steps', at: NOW, stepIds })).toThrow(
      expect.objectContaining({ code: 'INVALID_REORDER', message, details: { field: 'stepOrder' } }),
    );
  });

  it('reorder_steps refuses to put a skip_to target before its step', () => {
    const state = plan('planning', ['pending', 'pending', 'pending'], [condition('c1', 's1', 'true', 'skip_to', 's3')]);
    expect(() => run(state, { type: 'reorder_steps', at: NOW, stepIds: ['s3', 's1', 's2'] })).toThrow(
      expect.objectContaining({
        code: 'INVALID_REORDER',
        message:
          'stepOrder would move step s3, the skip_to target of condition c1, to position 1, not after its step s1 at position 2',
      }),
    );
    expect(ids(run(state, { type: 'reorder_steps', at: NOW, stepIds: ['s2', 's1', 's3'] }))).toBe('1:s2 2:s1 3:s3');
  });

  it('update_step_instructions records the old and new text', () => {
    const { state, effects } = transition(base, {
      type: 'update_step_instructions',
      at: NOW,
      stepId: 's3',
      instructions: 'Narrow to EU',
      rationale: 'Scope',
    });
    expect(state.steps[2]?.instructions).toBe('Narrow to EU');
    expect(auditOf(effects)[0]).toMatchObject({
      stepId: 's3',
      payload: {
        action: 'update_step_instructions',
        previousInstructions: 'Do step 3',
        instructions: 'Narrow to EU',
        rationale: 'Scope',
      },
    });
  });

  it('update_step_instructions refuses empty instructions', () => {
    expect(() => run(base, { type: 'update_step_instructions', at: NOW, stepId: 's3', instructions: '' })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: 'updatedInstructions must not be empty' }),
    );
  });

  it('fail_step keeps the reason; the plan carries on, and completes once nothing is left open', () => {
    const failed = run(base, { type: 'fail_step', at: NOW, stepId: 's2', reason: 'Paywalled' });
    expect(failed.steps[1]).toMatchObject({ status: 'failed', failureReason: 'Paywalled', completedAt: NOW });
    expect(failed.status).toBe('executing');
    expect(run(failed, { type: 'fail_step', at: NOW, stepId: 's3' }).status).toBe('completed');
  });

  it('fail_step on a plan still being planned keeps it planning (nothing has started)', () => {
    expect(run(plan('planning', ['pending', 'pending']), { type: 'fail_step', at: NOW, stepId: 's1' }).status).toBe(
      'planning',
    );
  });
});
