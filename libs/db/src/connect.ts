import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';

/**
 * A Kysely of any database shape: what migrations and catalog checks receive, because they
 * run against tables that the service's compile-time DB type does not (yet) describe.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDb = Kysely<any>;

export interface CreateDbOptions {
  connectionString: string;
  /** Pool size per process. Default 10: several replicas x services must fit in max_connections. */
  max?: number;
  /** Shown in pg_stat_activity, so a slow query can be traced to its service. */
  applicationName?: string;
  /** Server-side cap on every statement. Default 30 s; 0 disables. */
  statementTimeoutMs?: number;
  /** A transaction left open (e.g. a hung request) is aborted after this long. Default 60 s. */
  idleInTransactionTimeoutMs?: number;
  /** Called when an idle pooled connection breaks (server restart, admin kill). Default: ignore; the pool replaces it. */
  onError?: (error: Error) => void;
}

/**
 * A Kysely instance over a pg Pool. Every service opens exactly one per process, connected as
 * the app role, and closes it with `closeDb` on shutdown.
 */
export function createDb<DB>(options: CreateDbOptions): Kysely<DB> {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'quarry',
    statement_timeout: options.statementTimeoutMs ?? 30_000,
    idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? 60_000,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
  });
  // Without a listener, an idle client's error (e.g. the server restarting) crashes the process.
  pool.on('error', options.onError ?? (() => undefined));
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
}

/** Wait for running queries, then close every pooled connection. */
export async function closeDb(db: AnyDb): Promise<void> {
  await db.destroy();
}
