import { expect } from '@jest/globals';
import {
  PlanEngineError,
  transition,
  type AuditEventType,
  type ClaimOutcome,
  type PlanErrorCode,
  type PlanEvent,
  type PlanSnapshot,
  type PlanStatus,
  type StepStatus,
} from '../../src/core/index.js';
import { minutes, NOW, statusOf } from './fixtures.js';

/*
 * The state machine as two tables, every cell written out: (plan status × event) and
 * (step status × step event). A cell is either the outcome (plan status after, audit rows in
 * order, the target step's status after, get_next_step's answer) or the exact refusal.
 */

export type Expectation =
  | {
      readonly ok: true;
      readonly status: PlanStatus;
      readonly audit: readonly AuditEventType[];
      readonly step?: StepStatus;
      readonly outcome?: ClaimOutcome;
    }
  | { readonly ok: false; readonly code: PlanErrorCode; readonly message: string };

export interface Cell {
  /** The step the event names (ignored by events that name none). */
  readonly target: string;
  readonly expect: Expectation;
}

export const ok = (
  status: PlanStatus,
  audit: readonly AuditEventType[],
  extra: { step?: StepStatus; outcome?: ClaimOutcome } = {},
): Expectation => ({
  ok: true,
  status,
  audit,
  ...extra,
});
export const refused = (code: PlanErrorCode, message: string): Expectation => ({ ok: false, code, message });
export const cell = (target: string, expect: Expectation): Cell => ({ target, expect });

/** One event per column; each mutating tool is a column, submit_user_decision once per decision. */
export const COLUMNS = {
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
export type Column = keyof typeof COLUMNS;

export function check(state: PlanSnapshot, event: PlanEvent, target: string, expectation: Expectation): void {
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
