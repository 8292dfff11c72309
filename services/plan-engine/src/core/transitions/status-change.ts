import { auditEvent, type AuditEvent, type AuditPayloads } from '../audit.js';
import type { PlanStatus } from '../types.js';

/** The `plan_status_changed` row when the status moved, else nothing. */
export function statusChange(
  from: PlanStatus,
  to: PlanStatus,
  cause: AuditPayloads['plan_status_changed']['cause'],
  sessionId: string | null | undefined,
  extra: Partial<Pick<AuditPayloads['plan_status_changed'], 'conditionId' | 'stalledStepIds'>> = {},
): AuditEvent[] {
  return from === to ? [] : [auditEvent('plan_status_changed', { from, to, cause, ...extra }, { sessionId })];
}
