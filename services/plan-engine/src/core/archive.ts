import { auditEvent } from './audit.js';
import type { Effect } from './effects.js';

/**
 * archive_plan / unarchive_plan when the flag actually changed: one plan_modified row. The plan's
 * status and steps are untouched (archived is a flag, not a status), so nothing else is written.
 */
export function archiveEffects(archived: boolean, sessionId: string | null): Effect[] {
  return [
    {
      kind: 'append_audit',
      event: auditEvent('plan_modified', { action: archived ? 'archive' : 'unarchive' }, { sessionId }),
    },
  ];
}
