import { sql, type Kysely } from 'kysely';

/** How long consumed events stay in the outbox by default: a week of history to debug from. */
export const DEFAULT_OUTBOX_RETENTION_MS = 7 * 86_400_000;

export interface CompactOutboxOptions {
  /** Only events older than this go (milliseconds). */
  retentionMs: number;
  /** Rows per statement: each batch is its own short transaction. Default 1,000 (at most 10,000). */
  batchSize?: number;
  /** Stop after this many batches (the next run continues). Default: until nothing is left to delete. */
  maxBatches?: number;
}

/**
 * Delete the outbox events every consumer has passed (at or below the smallest offset in
 * events.consumer_offsets) and older than the retention, in bounded batches, oldest first;
 * returns how many went. A consumer that lags holds every event after its offset; with no
 * offset stored at all, nothing goes. Needs the quarry_event_consumer role (or the owner).
 */
export async function compactOutbox(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  { retentionMs, batchSize = 1_000, maxBatches = Infinity }: CompactOutboxOptions,
): Promise<number> {
  if (!(retentionMs >= 0)) throw new TypeError('compactOutbox: retentionMs must be >= 0');
  const size = Math.min(Math.max(1, Math.floor(batchSize)), 10_000);
  const olderThan = `${Math.floor(retentionMs)} milliseconds`;
  let removed = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    const { rows } = await sql<{ removed: number }>`
      select events.compact_outbox(${olderThan}::interval, ${size}) as removed`.execute(db);
    const n = Number(rows[0]?.removed ?? 0);
    removed += n;
    if (n < size) break;
  }
  return removed;
}

export interface OutboxCompactionDeps extends CompactOutboxOptions {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  /** Time between runs. Default 10 minutes; the first run starts at once. */
  intervalMs?: number;
  /** Told how many events a run deleted (also 0). */
  onCompacted?: (removed: number) => void;
  /** Told about a failed run; the next run comes after the interval as usual. */
  onError?: (error: unknown) => void;
}

/** A background compaction loop; close() waits for the run in flight to finish. */
export interface OutboxCompaction {
  /** Run once now (between scheduled runs), e.g. from a test or an operator command. */
  runNow(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Compact the outbox now and then every `intervalMs`, from the process that consumes it. Runs
 * never overlap; each batch is one short statement, so writers wait at most one batch.
 */
export function startOutboxCompaction(deps: OutboxCompactionDeps): OutboxCompaction {
  const { intervalMs = 600_000, onCompacted = () => undefined, onError = () => undefined } = deps;
  let closed = false;
  let running: Promise<number> = Promise.resolve(0);
  let timer: NodeJS.Timeout | undefined;

  const run = () => {
    running = running.then(async () => {
      if (closed) return 0;
      try {
        const removed = await compactOutbox(deps.db, deps);
        onCompacted(removed);
        return removed;
      } catch (error) {
        onError(error);
        return 0;
      }
    });
    return running;
  };
  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => void run().finally(schedule), intervalMs);
    timer.unref();
  };
  void run().finally(schedule);

  return {
    runNow: run,
    async close() {
      closed = true;
      clearTimeout(timer);
      await running;
    },
  };
}
