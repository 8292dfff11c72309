import { describe, expect, it } from '@jest/globals';
import { archiveEffects, cancelPlan, PlanEngineError, type PlanStatus } from '../../src/core/index.js';
import { plan } from './fixtures.js';

describe('cancelPlan (cancel_plan)', () => {
  it.each<PlanStatus>(['planning', 'executing', 'awaiting_review', 'stalled'])(
    'turns a %s plan cancelled with one plan_status_changed row, steps untouched',
    (status) => {
      const before = plan(status, ['completed', 'in_progress', 'pending']);
      const decision = cancelPlan(before, { reason: 'Not needed', sessionId: 's' });
      expect(decision.state).toEqual({ ...before, status: 'cancelled' });
      expect(decision).toMatchObject({ cancelledNow: true, previousStatus: status });
      expect(decision.effects).toEqual([
        { kind: 'set_plan_status', status: 'cancelled' },
        {
          kind: 'append_audit',
          event: {
            type: 'plan_status_changed',
            stepId: null,
            sessionId: 's',
            payload: { from: status, to: 'cancelled', cause: 'cancel_plan', reason: 'Not needed' },
          },
        },
        { kind: 'notify', channel: 'plan_changed' },
      ]);
    },
  );

  it('changes nothing on a cancelled plan (a retry), and refuses a finished one or an empty reason', () => {
    const cancelled = plan('cancelled', ['completed', 'pending']);
    expect(cancelPlan(cancelled, { reason: 'again' })).toEqual({
      state: cancelled,
      effects: [],
      cancelledNow: false,
      previousStatus: 'cancelled',
    });
    for (const status of ['completed', 'failed'] as const) {
      expect(() => cancelPlan(plan(status, ['completed']), { reason: 'late' })).toThrow(
        new PlanEngineError(
          'PLAN_STATE_CONFLICT',
          `Plan is ${status}; cancel_plan needs a plan that is planning, executing, awaiting_review or stalled`,
        ),
      );
    }
    expect(() => cancelPlan(plan('executing', ['in_progress']), { reason: ' ' })).toThrow(/reason must not be empty/);
  });
});

describe('archiveEffects (archive_plan, unarchive_plan)', () => {
  it('is one plan_modified row naming the action, and nothing else', () => {
    expect(archiveEffects(true, 'a')).toEqual([
      {
        kind: 'append_audit',
        event: { type: 'plan_modified', stepId: null, sessionId: 'a', payload: { action: 'archive' } },
      },
    ]);
    expect(archiveEffects(false, null)[0]).toMatchObject({ event: { payload: { action: 'unarchive' } } });
  });
});
