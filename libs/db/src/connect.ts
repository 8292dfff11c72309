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
  /**
   * Called when a pooled connection breaks (server restart, failover, admin kill), idle or
   * checked out. Default: ignore; the statement on it fails and the pool replaces it.
   */
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
  // pg's client emits 'error' when its connection breaks; unheard, that crashes the process.
  // The pool listens to idle clients only, so a checked-out one (a transaction between two
  // statements) is heard here until it is released; the pool then discards it.
  const onError = options.onError ?? (() => undefined);
  pool.on('error', onError);
  pool.on('acquire', (client) => client.on('error', onError));
  pool.on('release', (_error, client) => client.off('error', onError));
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
}

/** Wait for running queries, then close every pooled connection. */
export async function closeDb(db: AnyDb): Promise<void> {
  await db.destroy();
}

/** SQLSTATEs of a server that is going away or refusing connections (beside class 08, connection exception). */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const NETWORK_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** What pg and pg-pool throw, without a code, when a connection breaks or cannot be had in time. */
const PG_CONNECTION_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/**
 * Whether `error` means the database could not be reached (down, restarting, failing over, out
 * of connections) rather than that the statement was wrong: the first is worth a retry and is
 * answered "unavailable", the second is a bug or bad input. Looks through `cause` chains.
 */
export function isConnectionFailure(error: unknown): boolean {
  // Duck-typed: socket errors are made by Node's own realm, so `instanceof Error` can miss them.
  let current = error as { code?: unknown; message?: unknown; cause?: unknown } | null | undefined;
  for (let depth = 0; typeof current === 'object' && current !== null && depth < 5; depth++) {
    const { code, message } = current;
    if (
      typeof code === 'string' &&
      (UNAVAILABLE_SQLSTATES.has(code) || NETWORK_ERRNOS.has(code) || /^08[0-9A-Z]{3}$/.test(code))
    )
      return true;
    if (typeof message === 'string' && PG_CONNECTION_MESSAGES.test(message)) return true;
    current = current.cause as typeof current;
  }
  return false;
}
