import { describe, expect, it } from '@jest/globals';
import {
  claimableStep,
  derivePlanStatus,
  isPlanStalled,
  progress,
  stalledStepIds,
  type StepStatus,
} from '../../src/core/index.js';
import { minutes, step } from './fixtures.js';

const steps = (...statuses: StepStatus[]) => statuses.map((status, index) => step(index + 1, status));

describe('derivePlanStatus', () => {
  it.each([
    [[], 'planning'],
    [['pending', 'pending'], 'planning'],
    [['failed', 'pending'], 'planning'], // failed before anything started: still planning
    [['completed', 'pending'], 'executing'],
    [['in_progress', 'pending'], 'executing'],
    [['awaiting_input'], 'awaiting_review'],
    [['completed', 'awaiting_input', 'in_progress'], 'awaiting_review'],
    [['completed', 'skipped'], 'completed'],
    [['completed', 'failed'], 'completed'], // a failed step does not fail the plan
    [['failed', 'failed'], 'completed'],
  ] as [StepStatus[], string][])('%j → %s', (statuses, expected) => {
    expect(derivePlanStatus(steps(...statuses))).toBe(expected);
  });

  it('calls a plan executing once any step has started, even if that step later failed', () => {
    expect(derivePlanStatus([step(1, 'failed', { startedAt: minutes(0) }), step(2, 'pending')])).toBe('executing');
  });
});

describe('isPlanStalled / stalledStepIds', () => {
  const working = [
    step(1, 'in_progress', { startedAt: minutes(0) }),
    step(2, 'in_progress', { startedAt: minutes(20) }),
    step(3, 'pending'),
  ];

  it('flags steps in progress for strictly longer than the threshold (30 minutes by default)', () => {
    expect(isPlanStalled(working, minutes(30))).toBe(false);
    expect(isPlanStalled(working, new Date(minutes(30).getTime() + 1))).toBe(true);
    expect(stalledStepIds(working, minutes(51))).toEqual(['s1', 's2']);
    expect(stalledStepIds(working, minutes(25), 10 * 60_000)).toEqual(['s1']);
  });

  it('ignores steps that are not in progress, however old', () => {
    expect(isPlanStalled([step(1, 'awaiting_input'), step(2, 'completed')], minutes(1_000))).toBe(false);
  });
});

describe('progress', () => {
  it('is (completed + skipped) / total × 100, failed steps counting in the total only', () => {
    expect(progress(steps('completed', 'skipped', 'failed', 'pending'))).toBe(50);
    expect(progress(steps('completed', 'in_progress', 'awaiting_input'))).toBeCloseTo(33.333, 3);
    expect(progress(steps('completed', 'skipped'))).toBe(100);
  });

  it('is 0 for a plan without steps', () => {
    expect(progress([])).toBe(0);
  });
});

describe('claimableStep', () => {
  it('is the pending step with the lowest order', () => {
    expect(claimableStep(steps('completed', 'in_progress', 'pending', 'pending'))?.id).toBe('s3');
    expect(claimableStep([step(5, 'pending', { id: 'late' }), step(2, 'pending', { id: 'early' })])?.id).toBe('early');
    expect(claimableStep(steps('completed', 'in_progress'))).toBeUndefined();
  });
});
