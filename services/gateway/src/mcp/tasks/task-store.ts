import { isUuid, withTenant } from '@quarry/db';
import { sql, type Kysely } from 'kysely';
import type { StoredStatus, TaskRecord } from './task-view.js';

/** The NOTIFY channel of cancellations: the payload is the task id, heard by every replica. */
export const TASK_CANCEL_CHANNEL = 'quarry_mcp_task_cancel';

/** Whose task: the org (row-level security) and the token that created it. */
export interface TaskOwner {
  orgId: string;
  tokenId: string;
}

export interface NewTask {
  id: string;
  owner: TaskOwner & { userId: string };
  tool: string;
  statusMessage: string;
  now: Date;
  runDeadline: Date;
  expiresAt: Date;
}

/** How a task ended, as its runner writes it. */
export type TaskOutcome =
  | { status: 'completed'; result: Record<string, unknown>; statusMessage?: string }
  | { status: 'failed'; error: { code: number; message: string }; statusMessage: string }
  | { status: 'cancelled'; statusMessage: string };

interface Row {
  id: string;
  status: StoredStatus;
  status_message: string | null;
  result: Record<string, unknown> | null;
  error: { code: number; message: string } | null;
  created_at: Date;
  updated_at: Date;
  run_deadline: Date;
  expires_at: Date;
}

const recordOf = (row: Row): TaskRecord => ({
  id: row.id,
  status: row.status,
  statusMessage: row.status_message,
  result: row.result,
  error: row.error,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  runDeadline: row.run_deadline,
  expiresAt: row.expires_at,
});

/** gateway.mcp_tasks: every statement runs for one org (withTenant) and, on lookups, one token. */
export function createTaskStore(db: Kysely<unknown>) {
  return {
    /** Records a new working task, durably (a tasks/get on any replica finds it once this resolves); forgets the org's expired ones. */
    async create(task: NewTask): Promise<TaskRecord> {
      return withTenant(db, task.owner, async (trx) => {
        await sql`delete from gateway.mcp_tasks where org_id = ${task.owner.orgId} and expires_at < ${task.now}`.execute(
          trx,
        );
        const { rows } = await sql<Row>`
          insert into gateway.mcp_tasks
            (id, org_id, token_id, user_id, tool, status, status_message, created_at, updated_at, run_deadline, expires_at)
          values (${task.id}, ${task.owner.orgId}, ${task.owner.tokenId}, ${task.owner.userId}, ${task.tool}, 'working',
            ${task.statusMessage}, ${task.now}, ${task.now}, ${task.runDeadline}, ${task.expiresAt})
          returning *`.execute(trx);
        return recordOf(rows[0]!);
      });
    },

    /** The caller's task, or undefined: another token's or another org's task is missing alike. */
    async get(owner: TaskOwner, id: string): Promise<TaskRecord | undefined> {
      if (!isUuid(id)) return undefined;
      return withTenant(db, owner, async (trx) => {
        const { rows } = await sql<Row>`
          select * from gateway.mcp_tasks where id = ${id} and token_id = ${owner.tokenId}`.execute(trx);
        return rows[0] ? recordOf(rows[0]) : undefined;
      });
    },

    /**
     * Asks for the caller's working task to stop: sets its flag and tells every replica (NOTIFY,
     * sent at commit). Undefined when the caller has no such task; a finished one is left as it is.
     */
    async requestCancel(owner: TaskOwner, id: string): Promise<TaskRecord | undefined> {
      if (!isUuid(id)) return undefined;
      return withTenant(db, owner, async (trx) => {
        const { rows } = await sql<Row>`
          update gateway.mcp_tasks set cancel_requested = (status = 'working')
          where id = ${id} and token_id = ${owner.tokenId}
          returning *`.execute(trx);
        const row = rows[0];
        if (row?.status === 'working') await sql`select pg_notify(${TASK_CANCEL_CHANNEL}, ${id})`.execute(trx);
        return row ? recordOf(row) : undefined;
      });
    },

    /** Whether a cancellation of the task was asked for (a replica that missed the NOTIFY checks). */
    async cancelRequested(orgId: string, id: string): Promise<boolean> {
      return withTenant(db, { orgId }, async (trx) => {
        const { rows } = await sql<{ cancel_requested: boolean }>`
          select cancel_requested from gateway.mcp_tasks where id = ${id}`.execute(trx);
        return rows[0]?.cancel_requested === true;
      });
    },

    /** Writes how a working task ended; a task no longer working (it cannot be) is left alone. */
    async finish(orgId: string, id: string, outcome: TaskOutcome, now: Date): Promise<void> {
      const result = outcome.status === 'completed' ? JSON.stringify(outcome.result) : null;
      const error = outcome.status === 'failed' ? JSON.stringify(outcome.error) : null;
      await withTenant(db, { orgId }, async (trx) => {
        await sql`
          update gateway.mcp_tasks
          set status = ${outcome.status}, status_message = ${outcome.statusMessage ?? null},
            result = ${result}::jsonb, error = ${error}::jsonb, updated_at = ${now}
          where id = ${id} and status = 'working'`.execute(trx);
      });
    },
  };
}
