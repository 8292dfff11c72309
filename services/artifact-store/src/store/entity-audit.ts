import { sql } from 'kysely';
import type { Trx } from './tenant.js';

/** One change to an org's entity graph, as entity_audit keeps it. */
export interface EntityChange {
  action: 'entity_created' | 'entity_changed' | 'relation_created' | 'evidence_added';
  entityId?: string;
  relationId?: string;
  details: Record<string, unknown>;
}

/**
 * Records the changes of one upsert in its transaction (entity_audit is insert-only): who asked
 * (the request id the gateway's tool-call log also holds), which plan's graph, what changed.
 */
export async function recordEntityChanges(
  trx: Trx,
  orgId: string,
  requestId: string,
  planId: string | undefined,
  changes: readonly EntityChange[],
): Promise<void> {
  if (changes.length === 0) return;
  await sql`
    insert into artifact.entity_audit (org_id, request_id, plan_id, action, entity_id, relation_id, details)
    select ${orgId}, ${requestId}, ${planId ?? null}, c.action, c.entity_id, c.relation_id, c.details
      from jsonb_to_recordset(${JSON.stringify(
        changes.map((c) => ({
          action: c.action,
          entity_id: c.entityId ?? null,
          relation_id: c.relationId ?? null,
          details: c.details,
        })),
      )}::jsonb) as c(action text, entity_id uuid, relation_id uuid, details jsonb)`.execute(trx);
}
