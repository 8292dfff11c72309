import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { IdentityDatabase } from './identity/schema.js';

export interface ToolCallRecord {
  occurredAt: Date;
  orgId: string;
  userId: string | null;
  tokenId: string | null;
  requestId: string;
  tool: string;
  durationMs: number;
  outcome: 'ok' | 'tool_error' | 'protocol_error' | 'input_required';
  errorCode: string | null;
  argumentBytes: number;
  inputTokens?: number | null;
  outputTokens?: number | null;
}

/**
 * The record of every tool call (`gateway.mcp_tool_call_log`), written off the request path:
 * recording never waits for the database and never fails a call; what cannot be kept is counted.
 */
export interface ToolCallLog {
  /** Queues a record; drops it (counted by `onDrop`) when the queue is full or the log closed. */
  record(entry: ToolCallRecord): void;
  /** Writes everything recorded so far (tests and the benchmark read it back). */
  flush(): Promise<void>;
  /** Records waiting to be written. */
  pending(): number;
  /** Stops the background writer after writing what is queued; later records are dropped. */
  close(): Promise<void>;
}

export interface ToolCallLogOptions {
  db: Kysely<IdentityDatabase>;
  logger: Logger;
  capacity?: number;
  batchSize?: number;
  flushIntervalMs?: number;
  /** Called with the number of records dropped and why: drops are counted, never silent. */
  onDrop?: (count: number, reason: 'queue_full' | 'write_failed') => void;
}

/**
 * Writes `mcp_tool_call_log` off the request path: `record` only appends to a bounded queue;
 * a single background writer inserts batches (one transaction per org, under RLS).
 */
export function createToolCallLog(options: ToolCallLogOptions): ToolCallLog {
  const capacity = options.capacity ?? 10_000;
  const batchSize = options.batchSize ?? 500;
  const queue: ToolCallRecord[] = [];
  let writing: Promise<void> | undefined;
  let closed = false;
  const timer = setInterval(() => void flush(), options.flushIntervalMs ?? 1000);
  timer.unref();

  async function writeBatch(batch: ToolCallRecord[]): Promise<void> {
    const byOrg = new Map<string, ToolCallRecord[]>();
    for (const record of batch) {
      const records = byOrg.get(record.orgId);
      if (records) records.push(record);
      else byOrg.set(record.orgId, [record]);
    }
    for (const [orgId, records] of byOrg) {
      try {
        await options.db.transaction().execute(async (trx) => {
          await sql`select set_config('app.org_id', ${orgId}, true)`.execute(trx);
          // One array per column, whatever the batch size: 12 parameters instead of 12 per row,
          // and nothing for the query builder to compile per batch (it showed in profiles).
          const column = <T>(pick: (r: ToolCallRecord) => T) => records.map(pick);
          await sql`
            insert into gateway.mcp_tool_call_log
              (occurred_at, org_id, user_id, token_id, request_id, tool, duration_ms, outcome, error_code, argument_bytes, input_tokens, output_tokens)
            select * from unnest(
              ${column((r) => r.occurredAt)}::timestamptz[], ${column((r) => r.orgId)}::uuid[], ${column((r) => r.userId)}::uuid[],
              ${column((r) => r.tokenId)}::uuid[], ${column((r) => r.requestId)}::text[], ${column((r) => r.tool)}::text[],
              ${column((r) => r.durationMs)}::float8[], ${column((r) => r.outcome)}::text[], ${column((r) => r.errorCode)}::text[],
              ${column((r) => r.argumentBytes)}::int4[], ${column((r) => r.inputTokens ?? null)}::int4[], ${column((r) => r.outputTokens ?? null)}::int4[]
            )
          `.execute(trx);
        });
      } catch (error) {
        options.logger.error({ err: error, records: records.length }, 'could not write the tool-call log');
        options.onDrop?.(records.length, 'write_failed');
      }
    }
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) await writeBatch(queue.splice(0, batchSize));
  }

  function flush(): Promise<void> {
    writing ??= drain().finally(() => {
      writing = undefined;
    });
    return writing;
  }

  return {
    record(entry) {
      if (closed || queue.length >= capacity) {
        options.onDrop?.(1, 'queue_full');
        return;
      }
      queue.push(entry);
      if (queue.length >= batchSize) void flush();
    },
    flush: async () => {
      await flush();
      if (queue.length > 0) await flush();
    },
    pending: () => queue.length,
    async close() {
      closed = true;
      clearInterval(timer);
      await flush();
      if (queue.length > 0) await flush();
    },
  };
}
