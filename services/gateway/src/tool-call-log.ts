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
export function createToolCallLog(options: ToolCallLogOptions) {
  const capacity = options.capacity ?? 10_000;
  const batchSize = options.batchSize ?? 500;
  const queue: ToolCallRecord[] = [];
  let writing: Promise<void> | undefined;
  let closed = false;
  const timer = setInterval(() => void flush(), options.flushIntervalMs ?? 1000);
  timer.unref();

  async function writeBatch(batch: ToolCallRecord[]): Promise<void> {
    const byOrg = new Map<string, ToolCallRecord[]>();
    for (const record of batch) byOrg.set(record.orgId, [...(byOrg.get(record.orgId) ?? []), record]);
    for (const [orgId, records] of byOrg) {
      try {
        await options.db.transaction().execute(async (trx) => {
          await sql`select set_config('app.org_id', ${orgId}, true)`.execute(trx);
          await trx
            .insertInto('gateway.mcp_tool_call_log')
            .values(
              records.map((r) => ({
                occurred_at: r.occurredAt,
                org_id: r.orgId,
                user_id: r.userId,
                token_id: r.tokenId,
                request_id: r.requestId,
                tool: r.tool,
                duration_ms: r.durationMs,
                outcome: r.outcome,
                error_code: r.errorCode,
                argument_bytes: r.argumentBytes,
                input_tokens: r.inputTokens ?? null,
                output_tokens: r.outputTokens ?? null,
              })),
            )
            .execute();
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
    record(entry: ToolCallRecord): void {
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
    async close(): Promise<void> {
      closed = true;
      clearInterval(timer);
      await flush();
      if (queue.length > 0) await flush();
    },
  };
}

export type ToolCallLog = ReturnType<typeof createToolCallLog>;
