import { describe, expect, it } from '@jest/globals';
import { transition, type PlanSnapshot } from '../../src/core/index.js';
import { auditOf, minutes, NOW, plan, run } from './fixtures.js';

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
      payload: { action: 'review_requested', summary: 'Check', questions: ['A?', 'B?'] },
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
