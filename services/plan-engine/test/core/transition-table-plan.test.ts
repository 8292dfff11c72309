import { describe, expect, it } from '@jest/globals';
import {
  PLAN_EVENT_TYPES,
  PLAN_STATUSES,
  type PlanEvent,
  type PlanSnapshot,
  type PlanStatus,
} from '../../src/core/index.js';
import { plan } from './fixtures.js';
import {
  cell,
  check,
  COLUMNS,
  ok,
  refused,
  type Cell,
  type Column,
  type Expectation,
} from './transition-table-support.js';

// The first of the state machine's two tables (the cells and the columns' events are in
// transition-table-support.ts).

// ---------------------------------------------------------------------------------------------
// Plan status × event. One consistent (reachable) plan per status; s2 started at minute 0.
// ---------------------------------------------------------------------------------------------

const PLANS: Record<PlanStatus, PlanSnapshot> = {
  planning: plan('planning', ['pending', 'pending', 'pending', 'pending']),
  executing: plan('executing', ['completed', 'in_progress', 'pending', 'pending']),
  awaiting_review: plan('awaiting_review', ['completed', 'awaiting_input', 'in_progress', 'pending']),
  stalled: plan('stalled', ['completed', 'in_progress', 'pending', 'pending']),
  completed: plan('completed', ['completed', 'completed', 'skipped', 'failed']),
  failed: plan('failed', ['completed', 'failed', 'in_progress', 'pending']),
  // cancel_plan leaves the steps as they were: where the work stopped.
  cancelled: plan('cancelled', ['completed', 'in_progress', 'awaiting_input', 'pending']),
};

const SUBMIT = 'submit_step_result needs a plan that is planning, executing, stalled or awaiting_review';
const REVIEW = 'request_user_review needs a plan that is executing, stalled or awaiting_review';
const DECIDE = 'submit_user_decision needs a plan that is awaiting_review';
const modify = (action: string): string =>
  action === 'fail_step'
    ? 'modify_plan(fail_step) needs a plan that is planning, executing or stalled'
    : `modify_plan(${action}) needs a plan that is planning or executing`;
const planRefused = (status: PlanStatus, rule: string): Expectation =>
  refused('PLAN_STATE_CONFLICT', `Plan is ${status}; ${rule}`);
const decideRefusedIn = (status: PlanStatus): Cell => cell('s2', planRefused(status, DECIDE));

/** Auto-advance: submitting a pending step the client was never handed. */
const AUTO_ADVANCE = 'submit_step_result (pending step)';
type PlanColumn = Column | typeof AUTO_ADVANCE;

const PLAN_TABLE: Record<PlanStatus, Record<PlanColumn, Cell>> = {
  planning: {
    claim_next_step: cell(
      '-',
      ok('executing', ['step_started', 'plan_status_changed'], { outcome: { status: 'next_step', stepId: 's1' } }),
    ),
    submit_step_result: cell(
      's1',
      ok('executing', ['step_started', 'step_completed', 'plan_status_changed'], { step: 'completed' }),
    ),
    [AUTO_ADVANCE]: cell(
      's2',
      ok('executing', ['step_started', 'step_completed', 'plan_status_changed'], { step: 'completed' }),
    ),
    request_review: cell('s1', planRefused('planning', REVIEW)),
    'decide_review:approve': decideRefusedIn('planning'),
    'decide_review:reject': decideRefusedIn('planning'),
    'decide_review:modify': decideRefusedIn('planning'),
    'decide_review:skip': decideRefusedIn('planning'),
    add_steps: cell('-', ok('planning', ['plan_modified'])),
    remove_step: cell('s1', ok('planning', ['plan_modified'])),
    reorder_steps: cell('-', ok('planning', ['plan_modified'])),
    update_step_instructions: cell('s1', ok('planning', ['plan_modified'], { step: 'pending' })),
    fail_step: cell('s1', ok('planning', ['plan_modified', 'step_failed'], { step: 'failed' })),
    detect_stall: cell('-', ok('planning', [])),
    resume_session: cell('-', ok('planning', ['session_resumed'])),
    record_feedback: cell('-', ok('planning', ['feedback_recorded'])),
  },
  executing: {
    claim_next_step: cell('-', ok('executing', ['step_started'], { outcome: { status: 'next_step', stepId: 's3' } })),
    submit_step_result: cell('s2', ok('executing', ['step_completed'], { step: 'completed' })),
    [AUTO_ADVANCE]: cell('s3', ok('executing', ['step_started', 'step_completed'], { step: 'completed' })),
    request_review: cell(
      's2',
      ok('awaiting_review', ['user_reviewed', 'plan_status_changed'], { step: 'awaiting_input' }),
    ),
    'decide_review:approve': decideRefusedIn('executing'),
    'decide_review:reject': decideRefusedIn('executing'),
    'decide_review:modify': decideRefusedIn('executing'),
    'decide_review:skip': decideRefusedIn('executing'),
    add_steps: cell('-', ok('executing', ['plan_modified'])),
    remove_step: cell('s3', ok('executing', ['plan_modified'])),
    reorder_steps: cell('-', ok('executing', ['plan_modified'])),
    update_step_instructions: cell('s2', ok('executing', ['plan_modified'], { step: 'in_progress' })),
    fail_step: cell('s2', ok('executing', ['plan_modified', 'step_failed'], { step: 'failed' })),
    detect_stall: cell('-', ok('stalled', ['plan_status_changed'])),
    resume_session: cell('-', ok('executing', ['session_resumed'])),
    record_feedback: cell('-', ok('executing', ['feedback_recorded'])),
  },
  awaiting_review: {
    claim_next_step: cell('-', ok('awaiting_review', [], { outcome: { status: 'awaiting_review' } })),
    submit_step_result: cell('s3', ok('awaiting_review', ['step_completed'], { step: 'completed' })),
    [AUTO_ADVANCE]: cell(
      's4',
      refused(
        'PLAN_STATE_CONFLICT',
        'Plan is awaiting_review; until the review is decided only in_progress steps accept a result (step 4 is pending)',
      ),
    ),
    request_review: cell('s3', ok('awaiting_review', ['user_reviewed'], { step: 'awaiting_input' })),
    'decide_review:approve': cell(
      's2',
      ok('executing', ['user_reviewed', 'step_completed', 'plan_status_changed'], { step: 'completed' }),
    ),
    'decide_review:reject': cell(
      's2',
      ok('failed', ['user_reviewed', 'step_failed', 'plan_status_changed'], { step: 'failed' }),
    ),
    'decide_review:modify': cell(
      's2',
      ok('executing', ['user_reviewed', 'plan_status_changed'], { step: 'in_progress' }),
    ),
    'decide_review:skip': cell('s2', ok('executing', ['user_reviewed', 'plan_status_changed'], { step: 'skipped' })),
    add_steps: cell('-', planRefused('awaiting_review', modify('add_steps'))),
    remove_step: cell('s4', planRefused('awaiting_review', modify('remove_step'))),
    reorder_steps: cell('-', planRefused('awaiting_review', modify('reorder_steps'))),
    update_step_instructions: cell('s4', planRefused('awaiting_review', modify('update_step_instructions'))),
    fail_step: cell('s3', planRefused('awaiting_review', modify('fail_step'))),
    detect_stall: cell('-', ok('awaiting_review', [])),
    resume_session: cell('-', ok('awaiting_review', ['session_resumed'])),
    record_feedback: cell('-', ok('awaiting_review', ['feedback_recorded'])),
  },
  stalled: {
    claim_next_step: cell(
      '-',
      ok('executing', ['step_started', 'plan_status_changed'], { outcome: { status: 'next_step', stepId: 's3' } }),
    ),
    submit_step_result: cell('s2', ok('executing', ['step_completed', 'plan_status_changed'], { step: 'completed' })),
    [AUTO_ADVANCE]: cell(
      's3',
      ok('executing', ['step_started', 'step_completed', 'plan_status_changed'], { step: 'completed' }),
    ),
    request_review: cell(
      's2',
      ok('awaiting_review', ['user_reviewed', 'plan_status_changed'], { step: 'awaiting_input' }),
    ),
    'decide_review:approve': decideRefusedIn('stalled'),
    'decide_review:reject': decideRefusedIn('stalled'),
    'decide_review:modify': decideRefusedIn('stalled'),
    'decide_review:skip': decideRefusedIn('stalled'),
    add_steps: cell('-', planRefused('stalled', modify('add_steps'))),
    remove_step: cell('s3', planRefused('stalled', modify('remove_step'))),
    reorder_steps: cell('-', planRefused('stalled', modify('reorder_steps'))),
    update_step_instructions: cell('s2', planRefused('stalled', modify('update_step_instructions'))),
    // Giving up on the stuck step is allowed, and the plan is executing again.
    fail_step: cell('s2', ok('executing', ['plan_modified', 'step_failed', 'plan_status_changed'], { step: 'failed' })),
    detect_stall: cell('-', ok('stalled', [])),
    resume_session: cell('-', ok('stalled', ['session_resumed'])),
    record_feedback: cell('-', ok('stalled', ['feedback_recorded'])),
  },
  completed: {
    claim_next_step: cell('-', ok('completed', [], { outcome: { status: 'plan_complete' } })),
    submit_step_result: cell('s2', planRefused('completed', SUBMIT)),
    [AUTO_ADVANCE]: cell('s4', planRefused('completed', SUBMIT)),
    request_review: cell('s2', planRefused('completed', REVIEW)),
    'decide_review:approve': decideRefusedIn('completed'),
    'decide_review:reject': decideRefusedIn('completed'),
    'decide_review:modify': decideRefusedIn('completed'),
    'decide_review:skip': decideRefusedIn('completed'),
    add_steps: cell('-', planRefused('completed', modify('add_steps'))),
    remove_step: cell('s4', planRefused('completed', modify('remove_step'))),
    reorder_steps: cell('-', planRefused('completed', modify('reorder_steps'))),
    update_step_instructions: cell('s2', planRefused('completed', modify('update_step_instructions'))),
    fail_step: cell('s2', planRefused('completed', modify('fail_step'))),
    detect_stall: cell('-', ok('completed', [])),
    resume_session: cell('-', ok('completed', ['session_resumed'])),
    record_feedback: cell('-', ok('completed', ['feedback_recorded'])),
  },
  failed: {
    claim_next_step: cell('-', ok('failed', [], { outcome: { status: 'plan_failed' } })),
    submit_step_result: cell('s3', planRefused('failed', SUBMIT)),
    [AUTO_ADVANCE]: cell('s4', planRefused('failed', SUBMIT)),
    request_review: cell('s3', planRefused('failed', REVIEW)),
    'decide_review:approve': decideRefusedIn('failed'),
    'decide_review:reject': decideRefusedIn('failed'),
    'decide_review:modify': decideRefusedIn('failed'),
    'decide_review:skip': decideRefusedIn('failed'),
    add_steps: cell('-', planRefused('failed', modify('add_steps'))),
    remove_step: cell('s4', planRefused('failed', modify('remove_step'))),
    reorder_steps: cell('-', planRefused('failed', modify('reorder_steps'))),
    update_step_instructions: cell('s4', planRefused('failed', modify('update_step_instructions'))),
    fail_step: cell('s4', planRefused('failed', modify('fail_step'))),
    detect_stall: cell('-', ok('failed', [])),
    resume_session: cell('-', ok('failed', ['session_resumed'])),
    record_feedback: cell('-', ok('failed', ['feedback_recorded'])),
  },
  // Terminal like failed; get_next_step answers plan_failed, so a client stops.
  cancelled: {
    claim_next_step: cell('-', ok('cancelled', [], { outcome: { status: 'plan_failed' } })),
    submit_step_result: cell('s3', planRefused('cancelled', SUBMIT)),
    [AUTO_ADVANCE]: cell('s4', planRefused('cancelled', SUBMIT)),
    request_review: cell('s3', planRefused('cancelled', REVIEW)),
    'decide_review:approve': decideRefusedIn('cancelled'),
    'decide_review:reject': decideRefusedIn('cancelled'),
    'decide_review:modify': decideRefusedIn('cancelled'),
    'decide_review:skip': decideRefusedIn('cancelled'),
    add_steps: cell('-', planRefused('cancelled', modify('add_steps'))),
    remove_step: cell('s4', planRefused('cancelled', modify('remove_step'))),
    reorder_steps: cell('-', planRefused('cancelled', modify('reorder_steps'))),
    update_step_instructions: cell('s4', planRefused('cancelled', modify('update_step_instructions'))),
    fail_step: cell('s4', planRefused('cancelled', modify('fail_step'))),
    detect_stall: cell('-', ok('cancelled', [])),
    resume_session: cell('-', ok('cancelled', ['session_resumed'])),
    record_feedback: cell('-', ok('cancelled', ['feedback_recorded'])),
  },
};

const eventFor = (column: PlanColumn, target: string): PlanEvent =>
  column === AUTO_ADVANCE ? COLUMNS.submit_step_result(target) : COLUMNS[column](target);

describe('plan status × event', () => {
  it('has a cell for every plan status and every event', () => {
    expect(Object.keys(PLAN_TABLE).sort()).toEqual([...PLAN_STATUSES].sort());
    const columns = [...Object.keys(COLUMNS), AUTO_ADVANCE].sort();
    for (const row of Object.values(PLAN_TABLE)) expect(Object.keys(row).sort()).toEqual(columns);
    const eventTypes = new Set(Object.values(COLUMNS).map((make) => make('s1').type));
    expect([...eventTypes].sort()).toEqual([...PLAN_EVENT_TYPES].sort());
  });

  it('uses fixtures whose stored status is the one their steps imply (they are reachable)', () => {
    for (const [status, state] of Object.entries(PLANS)) expect(state.status).toBe(status);
  });

  for (const status of PLAN_STATUSES) {
    describe(`a ${status} plan`, () => {
      for (const [column, { target, expect: expectation }] of Object.entries(PLAN_TABLE[status])) {
        const verdict = expectation.ok ? `→ ${expectation.status}` : `refused (${expectation.code})`;
        it(`${column}${target === '-' ? '' : ` on ${target}`} ${verdict}`, () => {
          check(PLANS[status], eventFor(column as PlanColumn, target), target, expectation);
        });
      }
    });
  }
});
