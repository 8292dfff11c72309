import * as lancedb from '@lancedb/lancedb';
import type { MaintenanceOptions } from './lancedb-table.js';

// The embedded LanceDB directory: how both tables are opened (options, shared session) and how
// they are dropped. Each table opens in its own file (lancedb-bm25.ts, lancedb-vector.ts); their
// shared columns, write path and upkeep live in lancedb-chunk-rows.ts and lancedb-table.ts.

/**
 * Embedded defaults: LanceDB tables in a local data directory (e.g. `.quarry/search`), no
 * server. `chunks_bm25` carries a Tantivy-style full-text (BM25) index with English stemming
 * and stop words over `title + text`; `chunks_vec` holds the vectors, searched exactly (flat
 * cosine scan) while small and through an IVF_FLAT index once it holds `ann.minRows` rows
 * (ADR 0037). Rows written after an index was built are still searched (flat); a background fold
 * (`LanceChunkTable`) puts them into the indexes shortly after every write.
 *
 * Tenant isolation: every query carries `org_id = '<org>'` in its `where`, which LanceDB applies
 * as a prefilter inside the scan (indexed or flat), before ranking and before `limit` — never after.
 */
export interface LanceOptions extends MaintenanceOptions {
  /** Data directory (created if missing). */
  dir: string;
  /** Table name; defaults to `chunks_bm25` / `chunks_vec`. */
  table?: string;
  /**
   * How stale reads may be, in seconds, when ANOTHER process writes the same directory (the
   * search service beside a separate indexer): at most this long after the last check a read
   * looks for newer table versions. 0 = check on every read. Unset = never check, the right
   * choice when the writer shares this process and these Table objects (`quarry start`).
   */
  readConsistencyIntervalSeconds?: number;
  /**
   * LanceDB's caches (decoded index pages, file metadata). Unset = a session of LanceDB's own
   * per connection, 6 GB of index and 1 GB of metadata cache each; `lanceSession` gives both
   * tables one session with bounded caches (ADR 0037).
   */
  session?: lancedb.Session;
}

/** Cache sizes, in MiB, of the LanceDB session both embedded tables share. */
export interface LanceCacheSizes {
  indexCacheMb: number;
  metadataCacheMb: number;
}

/** One LanceDB session with bounded caches, to be passed to both tables of a directory. */
export function lanceSession(sizes: LanceCacheSizes): lancedb.Session {
  const bytes = (mb: number) => BigInt(Math.round(mb * 2 ** 20));
  return new lancedb.Session(bytes(sizes.indexCacheMb), bytes(sizes.metadataCacheMb));
}

/** Drop the named tables of a LanceDB directory if they exist (reindex). */
export async function dropLanceTables(dir: string, tables: readonly string[]): Promise<void> {
  const conn = await lancedb.connect(dir);
  try {
    const existing = new Set(await conn.tableNames());
    for (const name of tables) if (existing.has(name)) await conn.dropTable(name);
  } finally {
    conn.close();
  }
}
