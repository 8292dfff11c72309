// The public shape of the embedded PostgreSQL: what `startEmbeddedPostgres` takes and returns.

export interface EmbeddedPostgresOptions {
  /**
   * A directory Quarry owns (e.g. `.quarry/postgres`). The cluster lives in `pgdata/` inside
   * it, next to the generated superuser password (0600), the remembered port and the server
   * log, because `initdb` needs an empty directory of its own.
   */
  dataDir: string;
  /** Listen on this port. Default: the port remembered in `dataDir` if still free, else any free port. */
  port?: number;
  /**
   * `true` keeps the data across restarts (`npm start`). `false` is a throwaway cluster for
   * tests: it runs without fsync and `stop()` deletes `dataDir`.
   */
  persistent: boolean;
  /** Database the returned `adminUrl` points at; created on start when missing. Default `postgres`. */
  database?: string;
  /**
   * Run the server in its own process group (default `true`), so a terminal Ctrl-C reaches only
   * the Node process, which can drain its requests before calling `stop()`. Test fixtures pass
   * `false` so an interrupted test run takes its cluster down with it.
   */
  detached?: boolean;
  /** Extra server settings (`-c name=value`), e.g. `{ max_connections: 200 }`. */
  settings?: Readonly<Record<string, string | number | boolean>>;
  /** Give up waiting for the server to accept connections after this long. Default 60 s. */
  startTimeoutMs?: number;
  /**
   * Restart the server, on the same port, when it exits without `stop()` (killed by the OOM
   * killer, a crash): clients reconnect on their own, so `npm start` heals instead of failing
   * every call until someone restarts it. Tries `maxAttempts` times (default 5), waiting 250 ms
   * doubling between tries, then gives up.
   */
  supervise?: EmbeddedPostgresSupervisor;
}

export interface EmbeddedPostgresSupervisor {
  /** The server exited on its own; a restart follows. */
  onExit(reason: string): void;
  onRestarted(info: { pid: number; ms: number; attempts: number }): void;
  /** Every restart failed: the server stays down. */
  onGaveUp(error: Error): void;
  maxAttempts?: number;
}

export interface EmbeddedPostgres {
  /** Superuser connection string (127.0.0.1 only). Use it for migrations and provisioning, never for services. */
  readonly adminUrl: string;
  readonly port: number;
  /** Process id of the postmaster (a new one after a supervised restart). */
  readonly pid: number;
  /** What start-up cost, so callers can report it: `initdbMs` is null when an existing cluster was reused. */
  readonly timings: { readonly initdbMs: number | null; readonly startMs: number };
  /** Fast shutdown (SIGINT: roll back open transactions, checkpoint, exit). Idempotent. */
  stop(): Promise<void>;
}

export interface RunningEmbeddedPostgres {
  readonly adminUrl: string;
  readonly port: number;
  readonly pid: number;
}
