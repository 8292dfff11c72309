import type { AuditEvent } from './audit.js';
import type { BranchingCondition, PlanSnapshot, PlanStatus, PlanStep } from './types.js';

/**
 * What the shell must do, in this order, inside the transaction that holds the plan's locks:
 * write the rows (`set_plan_status` … `delete_condition`), append the audit rows, then
 * `notify` (PostgreSQL NOTIFY is delivered at commit, so waiters never see uncommitted state).
 * Step and condition writes name whole rows, so the shell needs no rules of its own.
 */
export type Effect =
  | { readonly kind: 'set_plan_status'; readonly status: PlanStatus }
  | { readonly kind: 'delete_step'; readonly stepId: string }
  | { readonly kind: 'delete_condition'; readonly conditionId: string }
  | { readonly kind: 'update_step'; readonly step: PlanStep }
  | { readonly kind: 'insert_step'; readonly step: PlanStep }
  | { readonly kind: 'insert_condition'; readonly condition: BranchingCondition }
  | { readonly kind: 'append_audit'; readonly event: AuditEvent }
  /** Wakes long-polls of `get_plan_status`; emitted exactly when something about the plan changed. */
  | { readonly kind: 'notify'; readonly channel: 'plan_changed' };

/**
 * The full effect list for a change from `before` to `after`: row writes computed by comparing
 * the two snapshots (so no transition can forget one), then the audit rows, then `notify` when
 * any row changed. Deletes come before updates and inserts so a `(plan_id, order)` uniqueness
 * check only has to be deferred for reorders.
 */
export function effectsOf(before: PlanSnapshot, after: PlanSnapshot, audit: readonly AuditEvent[]): Effect[] {
  const writes: Effect[] = [];
  if (before.status !== after.status) writes.push({ kind: 'set_plan_status', status: after.status });

  const beforeSteps = new Map(before.steps.map((step) => [step.id, step]));
  const afterSteps = new Map(after.steps.map((step) => [step.id, step]));
  const beforeConditions = new Set(before.conditions.map((condition) => condition.id));
  const afterConditions = new Set(after.conditions.map((condition) => condition.id));

  for (const step of before.steps) if (!afterSteps.has(step.id)) writes.push({ kind: 'delete_step', stepId: step.id });
  for (const condition of before.conditions) {
    if (!afterConditions.has(condition.id)) writes.push({ kind: 'delete_condition', conditionId: condition.id });
  }
  for (const step of after.steps) {
    const previous = beforeSteps.get(step.id);
    if (previous === undefined) writes.push({ kind: 'insert_step', step });
    else if (!sameStep(previous, step)) writes.push({ kind: 'update_step', step });
  }
  for (const condition of after.conditions) {
    if (!beforeConditions.has(condition.id)) writes.push({ kind: 'insert_condition', condition });
  }

  const appended = audit.map((event): Effect => ({ kind: 'append_audit', event }));
  const notify: Effect[] = writes.length > 0 ? [{ kind: 'notify', channel: 'plan_changed' }] : [];
  return [...writes, ...appended, ...notify];
}

/** Field by field; results and reports compare by reference because transitions never copy an unchanged one. */
function sameStep(a: PlanStep, b: PlanStep): boolean {
  return (
    a.order === b.order &&
    a.type === b.type &&
    a.status === b.status &&
    a.instructions === b.instructions &&
    a.result === b.result &&
    a.confidence === b.confidence &&
    a.executionReport === b.executionReport &&
    a.formattingNotes === b.formattingNotes &&
    a.failureReason === b.failureReason &&
    a.startedAt?.getTime() === b.startedAt?.getTime() &&
    a.completedAt?.getTime() === b.completedAt?.getTime()
  );
}
