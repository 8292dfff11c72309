import { type AnyDb, sql } from '@quarry/db';
import type { ChainedAuditRow, ChainedTombstone } from '../core/audit-chain.js';
import type { SignedCheckpoint } from '../core/audit-checkpoint.js';

// What `quarry audit verify` reads, as the admin (a superuser, or the schema owner, which the
// tenant policies bind: each org is read under its own app.org_id). Raw columns only: the
// canonical content is rebuilt by the core, never by a database function an owner could replace.

export interface OrgAuditChain {
  readonly rows: ChainedAuditRow[];
  readonly tombstones: ChainedTombstone[];
  readonly checkpoints: SignedCheckpoint[];
}

/** Every org with audit entries or checkpoints (ledger heads, checkpoints, and rows a superuser sees). */
export async function auditChainOrgs(admin: AnyDb): Promise<string[]> {
  const { rows } = await sql<{ org_id: string }>`
    select org_id::text from plan_ledger.chain_heads
    union select org_id::text from plan_ledger.checkpoints
    union select org_id::text from plan.plan_audit_log
    union select org_id::text from plan.deleted_plans
    order by 1`.execute(admin);
  return rows.map((r) => r.org_id);
}

const MICROS = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;
const MILLIS = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/**
 * One org's audit rows, tombstones and checkpoints, each in chain order, from one snapshot
 * (repeatable read), so entries written meanwhile cannot look like a break.
 */
export async function readAuditChain(admin: AnyDb, orgId: string): Promise<OrgAuditChain> {
  return admin
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      await sql`select set_config('app.org_id', ${orgId}, true)`.execute(trx);
      const rows = await sql<Record<string, string | null>>`
      select id::text, org_id::text, chain_seq::text, plan_id::text, step_id::text, session_id, event_type,
             details::text as details, to_char(occurred_at at time zone 'UTC', ${sql.raw(MICROS)}) as occurred_at,
             prev_hash, row_hash
      from plan.plan_audit_log where org_id = ${orgId}::uuid order by chain_seq`.execute(trx);
      const tombstones = await sql<Record<string, string | null>>`
      select id::text, org_id::text, chain_seq::text, plan_id::text, deleted_by, request_id, steps_deleted,
             artifacts_deleted, outputs_deleted, extraction_results_deleted, audit_rows_purged, audit_rows_sha256,
             purged_links::text as purged_links, to_char(deleted_at at time zone 'UTC', ${sql.raw(MICROS)}) as deleted_at,
             prev_hash, row_hash
      from plan.deleted_plans where org_id = ${orgId}::uuid order by chain_seq`.execute(trx);
      const checkpoints = await sql<Record<string, string>>`
      select org_id::text, entries::text, head_hash, key_id, signature,
             to_char(signed_at at time zone 'UTC', ${sql.raw(MILLIS)}) as signed_at
      from plan_ledger.checkpoints where org_id = ${orgId}::uuid order by entries`.execute(trx);
      return {
        rows: rows.rows.map((r) => ({
          id: r.id!,
          orgId: r.org_id!,
          chainSeq: Number(r.chain_seq),
          planId: r.plan_id!,
          stepId: r.step_id ?? null,
          sessionId: r.session_id ?? null,
          eventType: r.event_type!,
          detailsJson: r.details!,
          occurredAt: r.occurred_at!,
          prevHash: r.prev_hash!,
          rowHash: r.row_hash!,
        })),
        tombstones: tombstones.rows.map((t) => ({
          id: t.id!,
          orgId: t.org_id!,
          chainSeq: Number(t.chain_seq),
          planId: t.plan_id!,
          deletedBy: t.deleted_by!,
          requestId: t.request_id ?? null,
          stepsDeleted: Number(t.steps_deleted),
          artifactsDeleted: Number(t.artifacts_deleted),
          outputsDeleted: Number(t.outputs_deleted),
          extractionResultsDeleted: Number(t.extraction_results_deleted),
          auditRowsPurged: Number(t.audit_rows_purged),
          auditRowsSha256: t.audit_rows_sha256!,
          purgedLinksJson: t.purged_links!,
          deletedAt: t.deleted_at!,
          prevHash: t.prev_hash!,
          rowHash: t.row_hash!,
        })),
        checkpoints: checkpoints.rows.map((c) => ({
          orgId: c.org_id!,
          entries: Number(c.entries),
          headHash: c.head_hash!,
          keyId: c.key_id!,
          signature: c.signature!,
          signedAt: c.signed_at!,
        })),
      };
    });
}
