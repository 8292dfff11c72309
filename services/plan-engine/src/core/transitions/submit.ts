import { auditEvent, type AuditEvent } from '../audit.js';
import { takeBranch } from '../branching.js';
import { PlanEngineError } from '../errors.js';
import type { PlanEvent } from '../events.js';
import {
  findStep,
  invalidArgument,
  replaceStep,
  requirePlanStatus,
  requireStepStatus,
  settleStatus,
} from '../rules.js';
import type { PlanSnapshot, PlanStep } from '../types.js';
import type { Change } from './change.js';
import { statusChange } from './status-change.js';

type SubmitEvent = Extract<PlanEvent, { type: 'submit_step_result' }>;

/**
 * submit_step_result: stores the result on a pending (auto-advance: started and completed at
 * once) or in_progress step, then lets the step's branching conditions act:
 * `skip_to` skips the pending steps in between, `fail` fails the plan, `continue` does nothing.
 * While a review is open only in_progress steps are accepted, so nobody works around the review
 * by submitting steps that were never handed out.
 */
export function submitStepResult(state: PlanSnapshot, event: SubmitEvent): Change {
  const confidence = event.confidence ?? null;
  if (confidence !== null && !(Number.isFinite(confidence) && confidence >= 0 && confidence <= 1)) {
    throw invalidArgument('confidence', `confidence must be a number between 0 and 1, got ${confidence}`);
  }
  requirePlanStatus(state, ['planning', 'executing', 'stalled', 'awaiting_review'], 'submit_step_result');
  const step = findStep(state, event.stepId);
  requireStepStatus(step, ['pending', 'in_progress'], 'only pending or in_progress steps accept a result');
  if (state.status === 'awaiting_review' && step.status === 'pending') {
    throw new PlanEngineError(
      'PLAN_STATE_CONFLICT',
      `Plan is awaiting_review; until the review is decided only in_progress steps accept a result (step ${step.order} is pending)`,
      { planStatus: state.status, stepId: step.id, stepStatus: step.status },
    );
  }

  const autoAdvanced = step.status === 'pending';
  const completed: PlanStep = {
    ...step,
    status: 'completed',
    result: event.result,
    confidence,
    executionReport: event.executionReport ?? null,
    formattingNotes: event.formattingNotes ?? null,
    startedAt: step.startedAt ?? event.at,
    completedAt: event.at,
  };
  let steps = replaceStep(state.steps, completed);
  const branch = takeBranch(state.conditions, completed, steps);
  if (branch !== null && branch.skippedStepIds.length > 0) {
    const skipped = new Set(branch.skippedStepIds);
    steps = steps.map((candidate) =>
      skipped.has(candidate.id) ? { ...candidate, status: 'skipped', completedAt: event.at } : candidate,
    );
  }
  const failsPlan = branch?.action === 'fail';
  const status = failsPlan ? 'failed' : settleStatus(state.status, steps);

  const ids = { stepId: step.id, sessionId: event.sessionId };
  const audit: AuditEvent[] = [
    ...(autoAdvanced ? [auditEvent('step_started', { stepOrder: step.order, autoAdvanced: true }, ids)] : []),
    auditEvent('step_completed', { stepOrder: step.order, confidence, via: 'result', branch }, ids),
    ...(failsPlan && branch !== null
      ? statusChange(state.status, status, 'branch_condition', event.sessionId, { conditionId: branch.conditionId })
      : statusChange(state.status, status, 'submit_step_result', event.sessionId)),
  ];
  return { state: { ...state, status, steps }, audit };
}
