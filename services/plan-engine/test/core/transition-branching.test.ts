import { describe, expect, it } from '@jest/globals';
import { describeCondition, transition, type PlanSnapshot } from '../../src/core/index.js';
import { auditOf, claim, condition, NOW, plan, run, submit } from './fixtures.js';

describe('branching after a submitted result', () => {
  const sixSteps = (conditions: Parameters<typeof plan>[2]): PlanSnapshot =>
    plan('executing', ['completed', 'in_progress', 'pending', 'pending', 'pending', 'pending'], conditions);

  it('skip_to skips the pending steps strictly between the step and its target', () => {
    const state = sixSteps([condition('c1', 's2', 'result.sources.count >= 5 && confidence > 0.5', 'skip_to', 's5')]);
    const { state: after, effects } = transition(state, submit('s2', { sources: { count: 7 } }, 0.9));
    expect(after.steps.map((s) => s.status)).toEqual([
      'completed',
      'completed',
      'skipped',
      'skipped',
      'pending',
      'pending',
    ]);
    expect(after.steps[2]?.completedAt).toEqual(NOW);
    expect(auditOf(effects).map((e) => e.payload)).toEqual([
      {
        stepOrder: 2,
        confidence: 0.9,
        via: 'result',
        branch: { conditionId: 'c1', action: 'skip_to', targetStepId: 's5', skippedStepIds: ['s3', 's4'] },
      },
    ]);
    expect(transition(after, claim).outcome).toEqual({ status: 'next_step', stepId: 's5' });
  });

  it('skip_to leaves intermediate steps someone is working on alone', () => {
    const state = plan(
      'executing',
      ['in_progress', 'in_progress', 'pending', 'pending'],
      [condition('c1', 's1', 'true', 'skip_to', 's4')],
    );
    const after = transition(state, submit('s1', {})).state;
    expect(after.steps.map((s) => s.status)).toEqual(['completed', 'in_progress', 'skipped', 'pending']);
  });

  it('does nothing when the expression is false', () => {
    const state = sixSteps([condition('c1', 's2', 'result.sources.count >= 5', 'skip_to', 's5')]);
    const after = transition(state, submit('s2', { sources: { count: 2 } })).state;
    expect(after.steps.map((s) => s.status)).toEqual([
      'completed',
      'completed',
      'pending',
      'pending',
      'pending',
      'pending',
    ]);
  });

  it('fail fails the plan, recording the condition as the cause', () => {
    const state = sixSteps([condition('c1', 's2', 'confidence < 0.7', 'fail')]);
    const { state: after, effects } = transition(state, submit('s2', {}, 0.3));
    expect(after.status).toBe('failed');
    expect(after.steps.slice(2).every((s) => s.status === 'pending')).toBe(true);
    expect(auditOf(effects).map((e) => [e.type, e.payload])).toEqual([
      [
        'step_completed',
        {
          stepOrder: 2,
          confidence: 0.3,
          via: 'result',
          branch: { conditionId: 'c1', action: 'fail', targetStepId: null, skippedStepIds: [] },
        },
      ],
      ['plan_status_changed', { from: 'executing', to: 'failed', cause: 'branch_condition', conditionId: 'c1' }],
    ]);
  });

  it('treats an absent confidence as missing: the comparison is false, the plan goes on', () => {
    const state = sixSteps([condition('c1', 's2', 'confidence < 0.7', 'fail')]);
    expect(transition(state, submit('s2', {})).state.status).toBe('executing');
  });

  it('tries the step conditions in declaration order and the first true one decides (continue included)', () => {
    const conditions = [
      condition('keep-going', 's2', 'confidence >= 0.9', 'continue'),
      condition('give-up', 's2', 'confidence < 0.95', 'fail'),
    ];
    const confident = transition(sixSteps(conditions), submit('s2', {}, 0.92));
    expect(confident.state.status).toBe('executing');
    expect(auditOf(confident.effects)[0]?.payload).toMatchObject({
      branch: { conditionId: 'keep-going', action: 'continue' },
    });
    expect(transition(sixSteps(conditions), submit('s2', {}, 0.5)).state.status).toBe('failed');
  });

  it('only evaluates the conditions of the submitted step', () => {
    const state = sixSteps([condition('c1', 's3', 'true', 'fail')]);
    expect(transition(state, submit('s2', {})).state.status).toBe('executing');
  });

  it('keeps pointing at the same steps after a reorder', () => {
    const state = plan(
      'executing',
      ['completed', 'in_progress', 'pending', 'pending', 'pending'],
      [condition('c1', 's2', 'true', 'skip_to', 's5')],
    );
    const reordered = run(state, { type: 'reorder_steps', at: NOW, stepIds: ['s1', 's3', 's2', 's4', 's5'] });
    expect(describeCondition(reordered.conditions[0]!, reordered.steps)).toEqual({
      id: 'c1',
      afterStepOrder: 3,
      conditionExpression: 'true',
      ifTrueAction: 'skip_to',
      actionParams: { targetStepOrder: 5 },
    });
    const after = transition(reordered, submit('s2', {})).state;
    expect(after.steps.map((s) => `${s.id}:${s.status}`)).toEqual([
      's1:completed',
      's3:pending',
      's2:completed',
      's4:skipped',
      's5:pending',
    ]);
  });
});
