import * as lancedb from '@lancedb/lancedb';
import type { Schema } from 'apache-arrow';
import pRetry from 'p-retry';

// Opening an embedded table: connect (with the shared cache session), create it or bring an
// older one up to the current columns and its source_id index, retrying what another process
// opening the same new directory can make fail.

/**
 * The search service and the indexer may open the same directory at the same moment (separate
 * processes): one can find the table half created ("exists but could not be loaded") or lose a
 * commit race on the column or index it adds. The open is retried a few times, briefly.
 */
export async function openTable(
  options: { dir: string; readConsistencyIntervalSeconds?: number; session?: lancedb.Session },
  name: string,
  schema: Schema,
): Promise<{ conn: lancedb.Connection; table: lancedb.Table }> {
  return retried(() => openTableOnce(options, name, schema));
}

/**
 * `attempt`, again on failure (a few times, briefly): another process opening the same new
 * directory can win a commit this one made at the same moment (LanceDB: "Retryable commit
 * conflict"); the next attempt sees what it committed. LanceDB's errors come from its native
 * module, which under a test VM is another realm, so they are made this realm's Errors for p-retry.
 */
export function retried<T>(attempt: () => Promise<T>): Promise<T> {
  return pRetry(
    async () => {
      try {
        return await attempt();
      } catch (error) {
        throw error instanceof Error ? error : new Error(String((error as { message?: unknown })?.message ?? error));
      }
    },
    { retries: 5, minTimeout: 50, maxTimeout: 1_000 },
  );
}

async function openTableOnce(
  options: { dir: string; readConsistencyIntervalSeconds?: number; session?: lancedb.Session },
  name: string,
  schema: Schema,
): Promise<{ conn: lancedb.Connection; table: lancedb.Table }> {
  const interval = options.readConsistencyIntervalSeconds;
  // The session goes in the options: the JS `connect` drops a session given as its third argument.
  const conn = await lancedb.connect(options.dir, {
    ...(interval === undefined ? {} : { readConsistencyInterval: interval }),
    ...(options.session ? { session: options.session } : {}),
  });
  try {
    return { conn, table: await prepareTable(conn, name, schema) };
  } catch (error) {
    conn.close();
    throw error;
  }
}

async function prepareTable(conn: lancedb.Connection, name: string, schema: Schema): Promise<lancedb.Table> {
  const table = (await conn.tableNames()).includes(name)
    ? await conn.openTable(name)
    : await conn.createEmptyTable(name, schema, { mode: 'create', existOk: true });
  // Tables made before documents carried created_at get it as an all-null column (LanceDB adds
  // a column without rewriting the data); the next version of each source fills it.
  const fields = (await table.schema()).fields;
  if (!fields.some((f) => f.name === 'created_at')) {
    await table.addColumns([{ name: 'created_at', valueSql: 'CAST(NULL AS string)' }]);
  }
  // …and before chunks named the page of a document they lie on, `unit` the same way.
  if (!fields.some((f) => f.name === 'unit')) await table.addColumns([{ name: 'unit', valueSql: 'CAST(NULL AS int)' }]);
  // Upserts look up a source's stored hashes; a B-tree on source_id keeps that off a full scan.
  if (!(await table.listIndices()).some((i) => i.columns.includes('source_id'))) {
    await table.createIndex('source_id', { config: lancedb.Index.btree(), replace: true });
  }
  return table;
}

/** Rows of `table` outside its index on `column` (0 when there is no such index). */
export async function unindexedRows(table: lancedb.Table, column: string): Promise<number> {
  const index = (await table.listIndices()).find((i) => i.columns.includes(column));
  return index ? ((await table.indexStats(index.name))?.numUnindexedRows ?? 0) : 0;
}
