import { describe, expect, it } from '@jest/globals';
import {
  PLAN_EVENT_TYPES,
  PLAN_STATUSES,
  PlanEngineError,
  STEP_STATUSES,
  transition,
  type AuditEventType,
  type ClaimOutcome,
  type PlanErrorCode,
  type PlanEvent,
  type PlanSnapshot,
  type PlanStatus,
  type StepStatus,
} from '../../src/core/index.js';
import { minutes, NOW, plan, statusOf } from './fixtures.js';

/*
 * The state machine as two tables, every cell written out: (plan status × event) and
 * (step status × step event). A cell is either the outcome (plan status after, audit rows in
 * order, the target step's status after, get_next_step's answer) or the exact refusal.
 */

type Expectation =
  | {
      readonly ok: true;
      readonly status: PlanStatus;
      readonly audit: readonly AuditEventType[];
      readonly step?: StepStatus;
      readonly outcome?: ClaimOutcome;
    }
  | { readonly ok: false; readonly code: PlanErrorCode; readonly message: string };

interface Cell {
  /** The step the event names (ignored by events that name none). */
  readonly target: string;
  readonly expect: Expectation;
}

const ok = (
  status: PlanStatus,
  audit: readonly AuditEventType[],
  extra: { step?: StepStatus; outcome?: ClaimOutcome } = {},
): Expectation => ({
  ok: true,
  status,
  audit,
  ...extra,
});
const refused = (code: PlanErrorCode, message: string): Expectation => ({ ok: false, code, message });
const cell = (target: string, expect: Expectation): Cell => ({ target, expect });

/** One event per column; each mutating tool is a column, submit_user_decision once per decision. */
const COLUMNS = {
  claim_next_step: () => ({ type: 'claim_next_step', at: NOW }),
  submit_step_result: (stepId) => ({
    type: 'submit_step_result',
    at: NOW,
    stepId,
    result: { sources: { count: 3 } },
    confidence: 0.8,
  }),
  request_review: (stepId) => ({
    type: 'request_review',
    at: NOW,
    stepId,
    summary: 'Found 3 sources',
    questions: ['Enough?'],
  }),
  'decide_review:approve': (stepId) => ({ type: 'decide_review', at: NOW, stepId, decision: 'approve' }),
  'decide_review:reject': (stepId) => ({
    type: 'decide_review',
    at: NOW,
    stepId,
    decision: 'reject',
    feedback: 'Off topic',
  }),
  'decide_review:modify': (stepId) => ({
    type: 'decide_review',
    at: NOW,
    stepId,
    decision: 'modify',
    feedback: 'Add 2024 data',
  }),
  'decide_review:skip': (stepId) => ({ type: 'decide_review', at: NOW, stepId, decision: 'skip' }),
  add_steps: () => ({
    type: 'add_steps',
    at: NOW,
    steps: [{ id: 'new', type: 'analyze', instructions: 'Compare', insertAfterOrder: 1 }],
  }),
  remove_step: (stepId) => ({ type: 'remove_step', at: NOW, stepId }),
  reorder_steps: () => ({ type: 'reorder_steps', at: NOW, stepIds: ['s1', 's2', 's4', 's3'] }),
  update_step_instructions: (stepId) => ({
    type: 'update_step_instructions',
    at: NOW,
    stepId,
    instructions: 'Search harder',
  }),
  fail_step: (stepId) => ({ type: 'fail_step', at: NOW, stepId, reason: 'Source offline' }),
  /** An hour in, the in_progress steps started at minute 0 are overdue. */
  detect_stall: () => ({ type: 'detect_stall', at: minutes(60) }),
  resume_session: () => ({ type: 'resume_session', at: NOW, sessionId: 'session-1' }),
  record_feedback: () => ({ type: 'record_feedback', at: NOW, feedbackId: 'f1', feedbackType: 'closing' }),
} satisfies Record<string, (stepId: string) => PlanEvent>;
type Column = keyof typeof COLUMNS;

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
};

const SUBMIT = 'submit_step_result needs a plan that is planning, executing, stalled or awaiting_review';
const REVIEW = 'request_user_review needs a plan that is executing, stalled or awaiting_review';
const DECIDE = 'submit_user_decision needs a plan that is awaiting_review';
const modify = (action: string): string => `modify_plan(${action}) needs a plan that is planning or executing`;
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
    fail_step: cell('s2', planRefused('stalled', modify('fail_step'))),
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
};

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

// ---------------------------------------------------------------------------------------------

function check(state: PlanSnapshot, event: PlanEvent, target: string, expectation: Expectation): void {
  if (!expectation.ok) {
    let thrown: unknown;
    try {
      transition(state, event);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PlanEngineError);
    expect(thrown).toMatchObject({ code: expectation.code, message: expectation.message });
    return;
  }
  const { state: after, effects, outcome } = transition(state, event);
  expect(after.status).toBe(expectation.status);
  const audit = effects.flatMap((effect) => (effect.kind === 'append_audit' ? [effect.event.type] : []));
  expect(audit).toEqual(expectation.audit);
  if (expectation.step !== undefined) expect(statusOf(after, target)).toBe(expectation.step);
  expect(outcome).toEqual(expectation.outcome);
  // Exactly one notification when a row changed, none otherwise.
  const wrote = effects.some((effect) => effect.kind !== 'append_audit' && effect.kind !== 'notify');
  expect(effects.filter((effect) => effect.kind === 'notify')).toHaveLength(wrote ? 1 : 0);
  expect(wrote).toBe(after !== state);
}

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
