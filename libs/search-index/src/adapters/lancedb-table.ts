import * as lancedb from '@lancedb/lancedb';
import { setTimeout as sleep } from 'node:timers/promises';
import { planUpsertMany, sourceKeyString } from '../core/source.js';
import type { IndexedChunk, IndexedSource, SourceKey, UpsertReport } from '../types.js';
import { lanceChunksWhere, lanceSourcesWhere, sourceWhere } from './lancedb-where.js';

export type Row = Record<string, unknown>;

/** What triggers the background fold of written rows into the table's indexes. */
export interface MaintenanceOptions {
  /** Fold after this many writing upserts/deletes (0 = never; default 100). */
  optimizeEvery?: number;
  /** …or once this many chunk rows were written or deleted since the last fold (0 = never; default 1000). */
  optimizeEveryRows?: number;
  /** …and in any case at most this many milliseconds after a write (0 = never; default 1000). */
  optimizeWithinMs?: number;
  /**
   * Table versions younger than this are kept (default 60 s): a search service in another
   * process may still read one. Older ones are deleted by every fold and once more this long
   * after the last fold, so a bulk load's versions go when it ends, not at the next write.
   */
  keepVersionsMs?: number;
}

/** What the embedded tables add to the ports: upkeep a benchmark can force, wait for and observe. */
export interface LanceUpkeep {
  /** Fold written rows into the indexes now (after a fold already running). */
  optimize(): Promise<void>;
  /** Resolves when no background fold is running, queued or scheduled. */
  idle(): Promise<void>;
  /** Rows outside the table's main index (FTS or ANN), searched flat until the next fold. */
  unindexedRows(): Promise<number>;
  /** After a bulk load no other process reads (a reindex): fold now and delete every older version. */
  settle(): Promise<void>;
}

/**
 * Shared write path of both LanceDB tables (diff by content hash, merge-insert the changed
 * chunks, delete the gone ones) and their upkeep. Every write adds a fragment and rows outside
 * the indexes (searched flat, so each one slows every query); a background fold — compaction,
 * new rows into the FTS / vector / scalar indexes, then whatever `afterOptimize` adds (the vector
 * table trains its ANN index there) — runs when enough was written or shortly after any write,
 * never in the write's own path. Folds run one at a time, at most one waiting behind the running
 * one, so a burst of writes costs one more fold, and the lag stays bounded.
 */
export class LanceChunkTable {
  private writes = 0;
  private rows = 0;
  private readonly optimizeEvery: number;
  private readonly optimizeEveryRows: number;
  private readonly optimizeWithinMs: number;
  private timer: NodeJS.Timeout | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private readonly keepVersionsMs: number;
  private chain: Promise<void> = Promise.resolve();
  private queued = false;
  private closed = false;
  /** When the last fold ended and how long it took: the next one waits as long (see `background`). */
  private lastFold = { endedAt: 0, tookMs: 0 };
  private readonly closing = new AbortController();

  constructor(
    readonly conn: lancedb.Connection,
    readonly table: lancedb.Table,
    options: MaintenanceOptions,
    private readonly afterOptimize: () => Promise<void> = async () => {},
  ) {
    this.optimizeEvery = options.optimizeEvery ?? 100;
    this.optimizeEveryRows = options.optimizeEveryRows ?? 1000;
    this.optimizeWithinMs = options.optimizeWithinMs ?? 1000;
    this.keepVersionsMs = options.keepVersionsMs ?? 60_000;
  }

  async hashes(key: SourceKey): Promise<Map<number, string>> {
    return (await this.hashesMany([key])).get(sourceKeyString(key))!;
  }

  async hashesMany(keys: readonly SourceKey[]): Promise<Map<string, Map<number, string>>> {
    return chunksBySource(this.table, keys, ['content_hash'], (r) => String(r.content_hash));
  }

  /** `rows` turns the planned writes into table rows (and may fetch their vectors first). */
  async upsertMany(
    sources: readonly IndexedSource[],
    rows: (writes: { source: IndexedSource; chunk: IndexedChunk }[]) => Promise<Row[]>,
  ): Promise<UpsertReport[]> {
    const plan = planUpsertMany(await this.hashesMany(sources), sources);
    if (plan.writes.length > 0) {
      const data = await rows(plan.writes);
      await this.table.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data);
    }
    if (plan.removes.length > 0) await this.table.delete(lanceChunksWhere(plan.removes));
    const changed = plan.writes.length + plan.removes.reduce((n, r) => n + r.chunkNos.length, 0);
    if (changed > 0) this.wrote(changed);
    return plan.reports;
  }

  async deleteSource(key: SourceKey): Promise<number> {
    const result = await this.table.delete(sourceWhere(key));
    const deleted = Number(result.numDeletedRows ?? 0);
    if (deleted > 0) this.wrote(deleted);
    return deleted;
  }

  private wrote(rows: number): void {
    this.writes++;
    this.rows += rows;
    if (
      (this.optimizeEvery > 0 && this.writes >= this.optimizeEvery) ||
      (this.optimizeEveryRows > 0 && this.rows >= this.optimizeEveryRows)
    )
      this.background();
    else if (this.optimizeWithinMs > 0 && this.timer === undefined && !this.closed) {
      this.timer = setTimeout(() => this.background(), this.optimizeWithinMs);
      // A pending fold must not keep a finished process (a CLI, a test) alive.
      this.timer.unref();
    }
  }

  /**
   * Queue a fold unless one is already waiting. A fold compacts, and LanceDB's compaction
   * rewrites the table's growing fragment with the new rows: its cost grows with the table. So
   * the next fold starts no sooner than the last one took after it ended — at most half the
   * time goes to folding however fast rows come, and the lag stays within twice a fold's time
   * plus `optimizeWithinMs`. A failed fold is not fatal: the rows it would have indexed are still
   * searched (flat), and the next write queues another.
   */
  background(): void {
    if (this.queued || this.closed) return;
    this.queued = true;
    this.serial(async () => {
      const wait = this.lastFold.endedAt + this.lastFold.tookMs - performance.now();
      if (wait > 0) await sleep(wait, undefined, { signal: this.closing.signal });
      this.queued = false;
      if (this.closed) return;
      const started = performance.now();
      try {
        await this.fold();
      } finally {
        this.lastFold = { endedAt: performance.now(), tookMs: performance.now() - started };
      }
    }).catch(() => {});
  }

  /** Fold now (after any fold already running) and report its failure: benchmarks and tests. */
  optimize(): Promise<void> {
    return this.serial(() => this.fold());
  }

  /** Fold now, then delete every version but the newest (nothing else may be reading). */
  async settle(): Promise<void> {
    await this.idle();
    await this.serial(() => this.fold(0));
  }

  /** Resolves once no fold is running, queued or scheduled (benchmarks measure the lag this way). */
  async idle(): Promise<void> {
    for (;;) {
      await this.chain;
      if (this.queued) continue;
      if (this.timer === undefined || this.closed) return;
      await sleep(20);
    }
  }

  private serial(step: () => Promise<void>): Promise<void> {
    const run = this.chain.then(step);
    this.chain = run.catch(() => {});
    return run;
  }

  /** Compact fragments, fold new rows into the indexes, drop versions older than `keepMs`. */
  private async fold(keepMs = this.keepVersionsMs): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writes = 0;
    this.rows = 0;
    await this.table.optimize({ cleanupOlderThan: new Date(Date.now() - keepMs) });
    await this.afterOptimize();
    // The index training above may have written versions too: drop them all when asked to.
    if (keepMs === 0) await this.table.optimize({ cleanupOlderThan: new Date() });
    this.schedulePrune();
  }

  /**
   * The versions this fold kept for readers become deletable `keepVersionsMs` later; if no write
   * comes by then (the end of a bulk load), a last prune deletes them. The next fold re-arms it.
   */
  private schedulePrune(): void {
    clearTimeout(this.pruneTimer);
    if (this.closed) return;
    this.pruneTimer = setTimeout(() => {
      this.pruneTimer = undefined;
      this.serial(() => this.prune()).catch(() => {});
    }, this.keepVersionsMs + 1_000);
    this.pruneTimer.unref();
  }

  private async prune(): Promise<void> {
    if (this.closed) return;
    await this.table.optimize({ cleanupOlderThan: new Date(Date.now() - this.keepVersionsMs) });
  }

  /** Waits for a fold in progress (a table must not close under it); a fold merely scheduled is dropped. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.pruneTimer);
    this.closing.abort();
    await this.chain;
    this.table.close();
    this.conn.close();
  }
}

/**
 * Chunks of these sources, read by `columns` and turned into values by `read`, grouped by source
 * key then chunk number (every key present, empty when the source has no chunks).
 */
export async function chunksBySource<T>(
  table: lancedb.Table,
  keys: readonly SourceKey[],
  columns: readonly string[],
  read: (row: Row) => T,
): Promise<Map<string, Map<number, T>>> {
  const out = new Map(keys.map((k) => [sourceKeyString(k), new Map<number, T>()]));
  if (keys.length === 0) return out;
  const rows = (await table
    .query()
    .where(lanceSourcesWhere(keys))
    .select(['org_id', 'source_table', 'source_id', 'chunk_no', ...columns])
    .limit(100_000_000)
    .toArray()) as Row[];
  for (const r of rows) {
    const key = sourceKeyString({
      orgId: String(r.org_id),
      sourceTable: String(r.source_table),
      sourceId: String(r.source_id),
    });
    out.get(key)?.set(Number(r.chunk_no), read(r));
  }
  return out;
}
