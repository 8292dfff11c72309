/** A task's lifecycle state as stored: what a replica last wrote. */
export type StoredStatus = 'working' | 'completed' | 'failed' | 'cancelled';

/** A task's row (gateway.mcp_tasks), as the store reads it. */
export interface TaskRecord {
  id: string;
  status: StoredStatus;
  statusMessage: string | null;
  result: Record<string, unknown> | null;
  error: { code: number; message: string } | null;
  createdAt: Date;
  updatedAt: Date;
  runDeadline: Date;
  expiresAt: Date;
}

/** The extension's DetailedTask (io.modelcontextprotocol/tasks, 2026-07-28), as tasks/get returns it. */
export interface DetailedTask extends Record<string, unknown> {
  taskId: string;
  status: StoredStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs?: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** JSON-RPC internal error: a task whose replica stopped failed at the protocol level, not in the tool. */
const INTERNAL_ERROR = -32603;

/** What the caller is told about a task whose replica stopped (crashed, killed) while running it. */
export const ABANDONED_MESSAGE =
  'The gateway replica running this task stopped before it finished; call the tool again for a new task.';

/**
 * What a task looks like to its caller at `now`, or undefined once it has expired (then it is,
 * to everyone, a missing task). A task still 'working' past its run deadline was abandoned by a
 * replica that stopped: no one will finish it, so it reads as failed.
 */
export function taskView(record: TaskRecord, now: Date, pollIntervalMs: number): DetailedTask | undefined {
  if (now.getTime() >= record.expiresAt.getTime()) return undefined;
  const base = {
    taskId: record.id,
    createdAt: record.createdAt.toISOString(),
    ttlMs: record.expiresAt.getTime() - record.createdAt.getTime(),
  };
  if (record.status === 'working' && now.getTime() >= record.runDeadline.getTime()) {
    return {
      ...base,
      status: 'failed',
      statusMessage: ABANDONED_MESSAGE,
      lastUpdatedAt: record.runDeadline.toISOString(),
      error: { code: INTERNAL_ERROR, message: ABANDONED_MESSAGE },
    };
  }
  return {
    ...base,
    status: record.status,
    lastUpdatedAt: record.updatedAt.toISOString(),
    ...(record.statusMessage ? { statusMessage: record.statusMessage } : {}),
    ...(record.status === 'working' ? { pollIntervalMs } : {}),
    ...(record.status === 'completed' && record.result ? { result: record.result } : {}),
    ...(record.status === 'failed' && record.error ? { error: record.error } : {}),
  };
}
