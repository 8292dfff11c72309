import { describe, expect, it } from '@jest/globals';
import { transition, type PlanEvent } from '../../src/core/index.js';
import { auditOf, claim, deepFreeze, minutes, NOW, plan, run, statusOf, step, submit } from './fixtures.js';

// The transition event by event: claiming, submitting, stalls and the effects' order. Branching,
// reviews and modify_plan have files of their own (transition-*.test.ts).

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
