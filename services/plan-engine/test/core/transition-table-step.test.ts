import { describe, expect, it } from '@jest/globals';
import { STEP_STATUSES, type PlanSnapshot, type StepStatus } from '../../src/core/index.js';
import { plan } from './fixtures.js';
import { check, COLUMNS, ok, refused, type Column, type Expectation } from './transition-table-support.js';

// The second of the state machine's two tables (the cells and the columns' events are in
// transition-table-support.ts).

// ---------------------------------------------------------------------------------------------
// Step status × step event. The target is s2 in [s1 completed, s2 <status>, s3 pending, s4 …],
// in a plan whose status lets the event through, so only the step rule decides: events that
// need a review run in an awaiting_review plan (s4 awaiting_input), the others in an executing
// plan (s4 in_progress). An awaiting_input s2 in an executing plan cannot happen in practice;
// it is there to show that the step rule holds on its own.
// ---------------------------------------------------------------------------------------------

type StepColumn = Exclude<
  Column,
  'claim_next_step' | 'add_steps' | 'reorder_steps' | 'detect_stall' | 'resume_session' | 'record_feedback'
>;

const stepRefused = (status: StepStatus, rule: string): Expectation =>
  refused('STEP_STATE_CONFLICT', `Step 2 is ${status}; ${rule}`);
const RESULT_RULE = 'only pending or in_progress steps accept a result';
const REVIEW_RULE = 'only an in_progress step can request a review';
const DECIDE_RULE = 'a decision needs a step that is awaiting_input';
const REMOVE_RULE = 'only pending steps can be removed';
const UPDATE_RULE = 'only pending or in_progress steps can have their instructions updated';
const FAIL_RULE = 'only pending or in_progress steps can be failed';

/** Every step status refused by the decision columns except awaiting_input. */
const decisionRow = (
  status: StepStatus,
): Pick<Record<StepColumn, Expectation>, `decide_review:${string}` & StepColumn> => ({
  'decide_review:approve': stepRefused(status, DECIDE_RULE),
  'decide_review:reject': stepRefused(status, DECIDE_RULE),
  'decide_review:modify': stepRefused(status, DECIDE_RULE),
  'decide_review:skip': stepRefused(status, DECIDE_RULE),
});

const STEP_TABLE: Record<StepStatus, Record<StepColumn, Expectation>> = {
  pending: {
    submit_step_result: ok('executing', ['step_started', 'step_completed'], { step: 'completed' }),
    request_review: stepRefused('pending', REVIEW_RULE),
    ...decisionRow('pending'),
    remove_step: ok('executing', ['plan_modified']),
    update_step_instructions: ok('executing', ['plan_modified'], { step: 'pending' }),
    fail_step: ok('executing', ['plan_modified', 'step_failed'], { step: 'failed' }),
  },
  in_progress: {
    submit_step_result: ok('executing', ['step_completed'], { step: 'completed' }),
    request_review: ok('awaiting_review', ['user_reviewed', 'plan_status_changed'], { step: 'awaiting_input' }),
    ...decisionRow('in_progress'),
    remove_step: stepRefused('in_progress', REMOVE_RULE),
    update_step_instructions: ok('executing', ['plan_modified'], { step: 'in_progress' }),
    fail_step: ok('executing', ['plan_modified', 'step_failed'], { step: 'failed' }),
  },
  awaiting_input: {
    submit_step_result: stepRefused('awaiting_input', RESULT_RULE),
    request_review: stepRefused('awaiting_input', REVIEW_RULE),
    // s4 still awaits its own decision, so the plan keeps awaiting review (except on reject).
    'decide_review:approve': ok('awaiting_review', ['user_reviewed', 'step_completed'], { step: 'completed' }),
    'decide_review:reject': ok('failed', ['user_reviewed', 'step_failed', 'plan_status_changed'], { step: 'failed' }),
    'decide_review:modify': ok('awaiting_review', ['user_reviewed'], { step: 'in_progress' }),
    'decide_review:skip': ok('awaiting_review', ['user_reviewed'], { step: 'skipped' }),
    remove_step: stepRefused('awaiting_input', REMOVE_RULE),
    update_step_instructions: stepRefused('awaiting_input', UPDATE_RULE),
    fail_step: stepRefused('awaiting_input', FAIL_RULE),
  },
  completed: {
    submit_step_result: stepRefused('completed', RESULT_RULE),
    request_review: stepRefused('completed', REVIEW_RULE),
    ...decisionRow('completed'),
    remove_step: stepRefused('completed', REMOVE_RULE),
    update_step_instructions: stepRefused('completed', UPDATE_RULE),
    fail_step: stepRefused('completed', FAIL_RULE),
  },
  skipped: {
    submit_step_result: stepRefused('skipped', RESULT_RULE),
    request_review: stepRefused('skipped', REVIEW_RULE),
    ...decisionRow('skipped'),
    remove_step: stepRefused('skipped', REMOVE_RULE),
    update_step_instructions: stepRefused('skipped', UPDATE_RULE),
    fail_step: stepRefused('skipped', FAIL_RULE),
  },
  failed: {
    submit_step_result: stepRefused('failed', RESULT_RULE),
    request_review: stepRefused('failed', REVIEW_RULE),
    ...decisionRow('failed'),
    remove_step: stepRefused('failed', REMOVE_RULE),
    update_step_instructions: stepRefused('failed', UPDATE_RULE),
    fail_step: stepRefused('failed', FAIL_RULE),
  },
};

const NEEDS_REVIEW: readonly StepColumn[] = [
  'decide_review:approve',
  'decide_review:reject',
  'decide_review:modify',
  'decide_review:skip',
];

function stepTablePlan(target: StepStatus, column: StepColumn): PlanSnapshot {
  return NEEDS_REVIEW.includes(column)
    ? plan('awaiting_review', ['completed', target, 'pending', 'awaiting_input'])
    : plan('executing', ['completed', target, 'pending', 'in_progress']);
}

describe('step status × step event', () => {
  it('has a cell for every step status and every step event', () => {
    expect(Object.keys(STEP_TABLE).sort()).toEqual([...STEP_STATUSES].sort());
    const columns = Object.keys(STEP_TABLE.pending).sort();
    for (const row of Object.values(STEP_TABLE)) expect(Object.keys(row).sort()).toEqual(columns);
    expect(columns).toHaveLength(9);
  });

  for (const status of STEP_STATUSES) {
    describe(`a ${status} step`, () => {
      for (const [column, expectation] of Object.entries(STEP_TABLE[status])) {
        const verdict = expectation.ok ? `→ ${expectation.step ?? 'removed'}` : 'refused';
        it(`${column} ${verdict}`, () => {
          check(stepTablePlan(status, column as StepColumn), COLUMNS[column as StepColumn]('s2'), 's2', expectation);
        });
      }
    });
  }
});
