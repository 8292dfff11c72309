import pg from 'pg';

interface SessionClientOptions {
  connectionString: string;
  /** Shown in pg_stat_activity, so an operator (or a test) can find the connection. */
  applicationName: string;
  /** Give up connecting after this long. Default 10 s (as the pool's `createDb`). */
  connectTimeoutMs?: number;
}

/**
 * An unconnected `pg.Client` for a connection held for the life of a process or a subscription
 * rather than borrowed from the pool: a LISTEN, or a session advisory lock.
 *
 * The connect timeout bounds every (re)connection attempt, TLS and authentication included, so
 * a peer that accepts TCP but never answers (a half-up proxy, a host being failed over) fails the
 * attempt instead of hanging it, and the caller's retry goes on. TCP keepalive starts probing
 * after a short idle time: such a connection is silent for long stretches, and without probes a
 * peer that vanished without closing it would go unnoticed for hours (the Linux default).
 */
export function createSessionClient(options: SessionClientOptions): pg.Client {
  return new pg.Client({
    connectionString: options.connectionString,
    application_name: options.applicationName,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
}
