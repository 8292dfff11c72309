import { type AnyDb, sql } from '@quarry/db';

// The plan schema as an auditor reads it: straight from the database through the admin
// connection (a superuser), so row-level security hides nothing.

/**
 * Every row of every table of the `plan` schema, as text, sorted, per table (optionally only
 * one org's rows, from the tables that have an org). Two equal snapshots mean nothing was
 * inserted, updated (updated_at, status, results …) or deleted.
 */
export async function planSnapshot(admin: AnyDb, orgId?: string): Promise<Record<string, string[]>> {
  const { rows: tables } = await sql<{ table_name: string }>`
    select t.table_name from information_schema.tables t
    where t.table_schema = 'plan' and t.table_type = 'BASE TABLE'
      and (${orgId ?? null}::uuid is null or exists (
        select 1 from information_schema.columns c
        where c.table_schema = 'plan' and c.table_name = t.table_name and c.column_name = 'org_id'))
    order by t.table_name`.execute(admin);
  const snapshot: Record<string, string[]> = {};
  for (const { table_name: table } of tables) {
    const name = sql.table(`plan.${table}`);
    const { rows } = orgId
      ? await sql<{
          row: string;
        }>`select t::text as row from ${name} t where t.org_id = ${orgId}::uuid order by 1`.execute(admin)
      : await sql<{ row: string }>`select t::text as row from ${name} t order by 1`.execute(admin);
    snapshot[table] = rows.map((r) => r.row);
  }
  return snapshot;
}

export interface AuditRow {
  id: string;
  planId: string;
  stepId: string | null;
  sessionId: string | null;
  eventType: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- payloads differ per event type
  details: Record<string, any>;
  occurredAt: Date;
  /** The writing transaction's id: rows written by one transaction share it. */
  xmin: string;
}

/** Audit rows in insertion order: of one plan or of all, optionally only those after `afterId`. */
export async function auditRows(admin: AnyDb, filter: { planId?: string; afterId?: string } = {}): Promise<AuditRow[]> {
  const { rows } = await sql<AuditRow>`
    select a.id::text as id, a.plan_id as "planId", a.step_id as "stepId", a.session_id as "sessionId",
           a.event_type as "eventType", a.details, a.occurred_at as "occurredAt", a.xmin::text as xmin
    from plan.plan_audit_log a
    where (${filter.planId ?? null}::uuid is null or a.plan_id = ${filter.planId ?? null}::uuid)
      and a.id > ${filter.afterId ?? '0'}::bigint
    order by a.id`.execute(admin);
  return rows;
}

/** The id of the latest audit row of the whole log ('0' when empty): a cursor for "rows written since". */
export async function lastAuditId(admin: AnyDb): Promise<string> {
  const { rows } = await sql<{ id: string }>`select coalesce(max(id), 0)::text as id from plan.plan_audit_log`.execute(
    admin,
  );
  return rows[0]!.id;
}

/** The plan's step ids in plan order. */
export async function stepIdsOf(admin: AnyDb, planId: string): Promise<string[]> {
  const { rows } = await sql<{
    id: string;
  }>`select id from plan.plan_steps where plan_id = ${planId}::uuid order by step_order`.execute(admin);
  return rows.map((r) => r.id);
}

/** The plan's branching condition ids in evaluation order. */
export async function conditionIdsOf(admin: AnyDb, planId: string): Promise<string[]> {
  const { rows } = await sql<{
    id: string;
  }>`select id from plan.branching_conditions where plan_id = ${planId}::uuid order by evaluation_order`.execute(admin);
  return rows.map((r) => r.id);
}
