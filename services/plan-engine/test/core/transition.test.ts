import { describe, expect, it } from '@jest/globals';
import {
  describeCondition,
  transition,
  type AuditEvent,
  type Effect,
  type JsonValue,
  type PlanEvent,
  type PlanSnapshot,
} from '../../src/core/index.js';
import { condition, deepFreeze, minutes, NOW, plan, statusOf, step } from './fixtures.js';

const auditOf = (effects: readonly Effect[]): AuditEvent[] =>
  effects.flatMap((effect) => (effect.kind === 'append_audit' ? [effect.event] : []));
const run = (state: PlanSnapshot, ...events: PlanEvent[]): PlanSnapshot =>
  events.reduce((current, event) => transition(current, event).state, state);
const submit = (stepId: string, result: JsonValue, confidence?: number): PlanEvent => ({
  type: 'submit_step_result',
  at: NOW,
  stepId,
  result,
  ...(confidence === undefined ? {} : { confidence }),
});
const claim: PlanEvent = { type: 'claim_next_step', at: NOW };

describe('get_next_step (claim_next_step)', () => {
  it('hands out the pending step with the lowest order, never the same step twice', () => {
    const first = transition(plan('planning', ['pending', 'pending', 'pending']), claim);
    const second = transition(first.state, claim);
    expect([first.outcome, second.outcome]).toEqual([
      { status: 'next_step', stepId: 's1' },
      { status: 'next_step', stepId: 's2' },
    ]);
    expect(second.state.steps.filter((s) => s.status === 'in_progress').map((s) => s.id)).toEqual(['s1', 's2']);
    expect(statusOf(second.state, 's1')).toBe('in_progress');
    expect(second.state.steps[1]?.startedAt).toEqual(NOW);
  });

  it('goes by order, not by position in the array', () => {
    const state = deepFreeze({
      ...plan('planning', []),
      steps: [step(2, 'pending', { id: 'b' }), step(1, 'pending', { id: 'a' })],
    });
    expect(transition(state, claim).outcome).toEqual({ status: 'next_step', stepId: 'a' });
  });

  it('answers no_pending_steps and changes nothing when all open steps are being worked on, even for a stalled plan', () => {
    for (const status of ['executing', 'stalled'] as const) {
      const state = plan(status, ['completed', 'in_progress']);
      const result = transition(state, claim);
      expect(result).toEqual({ state, effects: [], outcome: { status: 'no_pending_steps' } });
    }
  });

  it('records who claimed: the session goes on the step_started row', () => {
    const { effects } = transition(plan('planning', ['pending']), { ...claim, sessionId: 'sess-9' });
    expect(auditOf(effects)[0]).toEqual({
      type: 'step_started',
      stepId: 's1',
      sessionId: 'sess-9',
      payload: { stepOrder: 1, autoAdvanced: false },
    });
    expect(auditOf(effects)[1]).toEqual({
      type: 'plan_status_changed',
      stepId: null,
      sessionId: 'sess-9',
      payload: { from: 'planning', to: 'executing', cause: 'claim_next_step' },
    });
  });
});

describe('submit_step_result', () => {
  it('stores the result, confidence, report and formatting notes on the step', () => {
    const state = plan('executing', ['in_progress', 'pending']);
    const event: PlanEvent = {
      type: 'submit_step_result',
      at: minutes(5),
      stepId: 's1',
      result: { sources: [1, 2] },
      confidence: 0.75,
      executionReport: 'Searched 3 databases',
      formattingNotes: 'Use a table',
    };
    const after = transition(state, event).state.steps[0];
    expect(after).toMatchObject({
      status: 'completed',
      result: { sources: [1, 2] },
      confidence: 0.75,
      executionReport: 'Searched 3 databases',
      formattingNotes: 'Use a table',
      startedAt: minutes(0),
      completedAt: minutes(5),
    });
  });

  it('auto-advances a pending step: started and completed at the same moment, recorded as such', () => {
    const { state, effects } = transition(plan('executing', ['in_progress', 'pending']), submit('s2', { ok: true }));
    expect(state.steps[1]).toMatchObject({ status: 'completed', startedAt: NOW, completedAt: NOW });
    expect(auditOf(effects).map((e) => [e.type, e.payload])).toEqual([
      ['step_started', { stepOrder: 2, autoAdvanced: true }],
      ['step_completed', { stepOrder: 2, confidence: null, via: 'result', branch: null }],
    ]);
  });

  it('completes the plan with the last open step', () => {
    const { state, effects } = transition(plan('executing', ['completed', 'in_progress']), submit('s2', 'done'));
    expect(state.status).toBe('completed');
    expect(auditOf(effects).at(-1)?.payload).toEqual({
      from: 'executing',
      to: 'completed',
      cause: 'submit_step_result',
    });
  });

  it.each([-0.1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses confidence %p, naming the field',
    (confidence) => {
      expect(() => transition(plan('executing', ['in_progress']), submit('s1', 1, confidence))).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT', details: { field: 'confidence' } }),
      );
    },
  );

  it('refuses an unknown step', () => {
    expect(() => transition(plan('executing', ['in_progress']), submit('nope', 1))).toThrow(
      expect.objectContaining({
        code: 'STEP_NOT_FOUND',
        kind: 'not_found',
        message: 'Step nope not found in this plan',
      }),
    );
  });
});

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

describe('request_user_review and submit_user_decision', () => {
  const reviewing = (): PlanSnapshot =>
    run(plan('executing', ['completed', 'in_progress', 'pending']), {
      type: 'request_review',
      at: NOW,
      stepId: 's2',
      summary: 'Please check',
    });

  it('records the summary and questions of a review request', () => {
    const { effects } = transition(plan('executing', ['in_progress']), {
      type: 'request_review',
      at: NOW,
      stepId: 's1',
      summary: 'Check',
      questions: ['A?', 'B?'],
    });
    expect(auditOf(effects)[0]).toMatchObject({
      type: 'user_reviewed',
      stepId: 's1',
      payload: { phase: 'requested', summary: 'Check', questions: ['A?', 'B?'] },
    });
  });

  it('refuses an empty summary before looking at anything else', () => {
    expect(() =>
      transition(plan('completed', ['completed']), { type: 'request_review', at: NOW, stepId: 's1', summary: '  ' }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: 'summary must not be empty' }));
  });

  it('modify appends the feedback to the instructions and restarts the stall clock', () => {
    const later = minutes(45);
    const after = transition(reviewing(), {
      type: 'decide_review',
      at: later,
      stepId: 's2',
      decision: 'modify',
      feedback: 'Include 2024',
    }).state;
    expect(after.steps[1]).toMatchObject({
      status: 'in_progress',
      instructions: 'Do step 2\n\nUser feedback: Include 2024',
      startedAt: later,
    });
    expect(after.status).toBe('executing');
  });

  it('modify without feedback is refused, naming the field', () => {
    expect(() => transition(reviewing(), { type: 'decide_review', at: NOW, stepId: 's2', decision: 'modify' })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', details: { field: 'feedback' } }),
    );
  });

  it('reject keeps the feedback as the failure reason', () => {
    const after = transition(reviewing(), {
      type: 'decide_review',
      at: NOW,
      stepId: 's2',
      decision: 'reject',
      feedback: 'Wrong scope',
    }).state;
    expect(after.steps[1]).toMatchObject({ status: 'failed', failureReason: 'Wrong scope', completedAt: NOW });
  });

  it('approving or skipping the last open step completes the plan', () => {
    const lastStep = run(plan('executing', ['completed', 'in_progress']), {
      type: 'request_review',
      at: NOW,
      stepId: 's2',
      summary: 'Final check',
    });
    for (const decision of ['approve', 'skip'] as const) {
      expect(transition(lastStep, { type: 'decide_review', at: NOW, stepId: 's2', decision }).state.status).toBe(
        'completed',
      );
    }
  });

  it('refuses a decision that is not one of the four', () => {
    expect(() =>
      transition(reviewing(), { type: 'decide_review', at: NOW, stepId: 's2', decision: 'maybe' as never }),
    ).toThrow(
      expect.objectContaining({
        code: 'INVALID_ARGUMENT',
        message: 'decision must be approve, reject, modify or skip, got maybe',
      }),
    );
  });
});

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
          change: 'steps_added',
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
      change: 'step_removed',
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
        change: 'instructions_updated',
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

describe('stall detection (detect_stall)', () => {
  const working = plan('executing', ['completed', 'in_progress']); // s2 started at minute 0

  it('flags an executing plan once a step has been in progress for longer than 30 minutes', () => {
    expect(transition(working, { type: 'detect_stall', at: minutes(30) }).state.status).toBe('executing');
    const { state, effects } = transition(working, { type: 'detect_stall', at: new Date(minutes(30).getTime() + 1) });
    expect(state.status).toBe('stalled');
    expect(auditOf(effects)[0]?.payload).toEqual({
      from: 'executing',
      to: 'stalled',
      cause: 'stall_detected',
      stalledStepIds: ['s2'],
    });
  });

  it('takes a custom threshold and refuses a meaningless one', () => {
    expect(transition(working, { type: 'detect_stall', at: minutes(6), thresholdMs: 5 * 60_000 }).state.status).toBe(
      'stalled',
    );
    expect(() => transition(working, { type: 'detect_stall', at: NOW, thresholdMs: 0 })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });

  it('a stalled plan is executing again as soon as its overdue step moves', () => {
    const stalled = run(working, { type: 'detect_stall', at: minutes(60) });
    expect(run(stalled, { ...submit('s2', {}), at: minutes(61) }).status).toBe('completed');
    const twoSteps = run(plan('executing', ['in_progress', 'pending']), { type: 'detect_stall', at: minutes(60) });
    expect(run(twoSteps, { ...submit('s1', {}), at: minutes(61) }).status).toBe('executing');
  });
});

describe('effects', () => {
  it('come as row writes, then audit rows, then one notification', () => {
    const { effects } = transition(plan('planning', ['pending', 'pending']), claim);
    expect(effects.map((e) => e.kind)).toEqual([
      'set_plan_status',
      'update_step',
      'append_audit',
      'append_audit',
      'notify',
    ]);
  });

  it('feedback and resumed sessions are recorded without touching the plan (no notification)', () => {
    const state = plan('completed', ['completed']);
    const result = transition(state, {
      type: 'record_feedback',
      at: NOW,
      feedbackId: 'f1',
      feedbackType: 'closing',
      sessionId: 's',
    });
    expect(result.state).toBe(state);
    expect(result.effects).toEqual([
      {
        kind: 'append_audit',
        event: {
          type: 'feedback_recorded',
          stepId: null,
          sessionId: 's',
          payload: { feedbackId: 'f1', feedbackType: 'closing' },
        },
      },
    ]);
  });
});
