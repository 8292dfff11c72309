import { setTimeout as sleep } from 'node:timers/promises';
import pRetry from 'p-retry';
import type pg from 'pg';
import { createListenBarrier, type ListeningConnection } from './listen.js';
import { createSessionClient } from './session-client.js';

/** Where the listener reports a lost connection and its return; a pino logger fits. */
interface ListenerLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface NotificationListenerOptions {
  connectionString: string;
  /** Shown in pg_stat_activity, so the connection can be told apart (and killed in tests). */
  applicationName: string;
  channels: readonly string[];
  /** Each notification on one of `channels`, in commit order; the payload is '' when there is none. */
  onNotification(channel: string, payload: string): void;
  /**
   * LISTEN is active on a new connection: after `start()`, and again after every reconnect.
   * Nothing that happened since `onLost` was heard: a caller that missed notifications re-reads
   * here (long-polls re-check, a cache starts again from empty).
   */
  onConnected?(): void;
  /**
   * The connection was lost (never called by `close()`): from now until `onConnected`,
   * notifications are missed, so nothing may be trusted to be current because none arrived.
   */
  onLost?(error: Error | undefined): void;
  logger: ListenerLogger;
  /**
   * Reconnect delays: exponential from `minMs` (default 250) up to `maxMs` (default 10 s), each
   * randomised by a factor of 1 to 2; the first attempt after a loss waits `minMs` too.
   */
  backoff?: { minMs?: number; maxMs?: number };
  /** Each connection attempt gives up after this long (see createSessionClient). Default 10 s. */
  connectTimeoutMs?: number;
  /**
   * A barrier not answered within this long gives the connection up as lost (and answers false).
   * Default 10 s.
   */
  barrierTimeoutMs?: number;
}

export interface NotificationListener {
  /** Connects and LISTENs; rejects if that first attempt fails (a process that cannot reach its database at boot fails fast). */
  start(): Promise<void>;
  /** Whether notifications are being received right now. */
  isListening(): boolean;
  /**
   * Resolves true once every notification committed before the call has been delivered to
   * `onNotification`, false when not listening or when the connection is lost meanwhile
   * (createListenBarrier: one `SELECT 1` on the LISTEN connection, shared by the calls of a tick).
   * A connection whose peer vanished without closing it would leave the query unanswered until
   * TCP gives up (many minutes) and every caller waiting; past `barrierTimeoutMs` the connection
   * counts as lost instead, and a new one is made.
   */
  barrier(): Promise<boolean>;
  /** Stops listening and reconnecting. Idempotent. */
  close(): Promise<void>;
}

/**
 * One PostgreSQL LISTEN connection that stays up: when it is lost (server restart, failover, an
 * administrator's pg_terminate_backend) the caller hears `onLost`, the listener reconnects with
 * exponential backoff until `close()`, LISTENs again and the caller hears `onConnected`.
 * Caches kept current by NOTIFY (token revocations, plan snapshots) stop answering between the
 * two and re-check with `barrier()`; see ADR 0020.
 */
export function createNotificationListener(options: NotificationListenerOptions): NotificationListener {
  const { logger, applicationName } = options;
  const stopping = new AbortController();
  let started = false;
  let closed = false;
  /** The connection that is listening; undefined while connecting, reconnecting or closed. */
  let current: pg.Client | undefined;
  /** Every client not yet released, including one still connecting: close() ends them all. */
  const open = new Set<pg.Client>();

  /** A caller's callback must not break the connection's event handling (or the process). */
  function safely(callback: string, run: () => void): void {
    try {
      run();
    } catch (error) {
      logger.warn({ err: error, applicationName }, `the LISTEN ${callback} callback threw`);
    }
  }

  const released = new WeakMap<pg.Client, Promise<void>>();
  function release(client: pg.Client): Promise<void> {
    let done = released.get(client);
    if (!done) {
      open.delete(client);
      client.removeAllListeners();
      // A socket error after we let go must not surface as an unhandled 'error' event.
      client.on('error', () => undefined);
      done = client.end().catch(() => undefined);
      released.set(client, done);
    }
    return done;
  }

  async function connect(): Promise<pg.Client> {
    const client = createSessionClient({
      connectionString: options.connectionString,
      applicationName,
      connectTimeoutMs: options.connectTimeoutMs,
    });
    open.add(client);
    let broken = false;
    client.on('error', (error) => {
      broken = true;
      lost(client, error);
    });
    client.on('end', () => {
      broken = true;
      lost(client, undefined);
    });
    // Delivered from the moment LISTEN is sent: a notification in the same packet as LISTEN's
    // reply comes before `onConnected`, which is harmless, where dropping it would not be.
    client.on('notification', ({ channel, payload }) =>
      safely('onNotification', () => options.onNotification(channel, payload ?? '')),
    );
    try {
      await client.connect();
      await client.query(options.channels.map((channel) => `listen ${client.escapeIdentifier(channel)}`).join('; '));
      if (broken) throw new Error('the LISTEN connection broke while it was being set up');
      return client;
    } catch (error) {
      await release(client);
      // p-retry gives up on a TypeError; a reconnect must not give up on anything.
      throw error instanceof TypeError ? new Error(error.message, { cause: error }) : error;
    }
  }

  /** The barrier's view of a connection: its `SELECT 1`, with a deadline. One per client (the barrier compares them). */
  const probes = new WeakMap<pg.Client, ListeningConnection>();
  function probe(client: pg.Client): ListeningConnection {
    let found = probes.get(client);
    if (!found) {
      const deadline = options.barrierTimeoutMs ?? 10_000;
      found = {
        query: async (text) => {
          let timer: NodeJS.Timeout | undefined;
          const expired = new Promise<never>((_, reject) => {
            timer = setTimeout(() => {
              const error = new Error(`the LISTEN connection did not answer a barrier within ${deadline} ms`);
              lost(client, error);
              reject(error);
            }, deadline);
          });
          try {
            return await Promise.race([client.query(text), expired]);
          } finally {
            clearTimeout(timer);
          }
        },
      };
      probes.set(client, found);
    }
    return found;
  }

  function adopt(client: pg.Client, reconnected: boolean): void {
    current = client;
    if (reconnected) logger.info({ applicationName }, 'LISTEN connection is back');
    if (options.onConnected) safely('onConnected', options.onConnected);
  }

  function lost(client: pg.Client, error: Error | undefined): void {
    if (client !== current) return;
    current = undefined;
    void release(client);
    if (closed) return;
    logger.warn({ err: error, applicationName }, 'LISTEN connection lost; notifications are missed until it is back');
    if (options.onLost) safely('onLost', () => options.onLost!(error));
    void reconnect();
  }

  async function reconnect(): Promise<void> {
    const minMs = options.backoff?.minMs ?? 250;
    let client: pg.Client;
    try {
      // Even the first attempt waits: a server that just went away is rarely back at once.
      await sleep(minMs * (1 + Math.random()), undefined, { signal: stopping.signal, ref: false });
      client = await pRetry(() => connect(), {
        retries: Infinity,
        factor: 2,
        minTimeout: minMs,
        maxTimeout: options.backoff?.maxMs ?? 10_000,
        // Replicas that lost the database together do not come back in lockstep.
        randomize: true,
        unref: true,
        signal: stopping.signal,
        onFailedAttempt: ({ error, attemptNumber }) =>
          logger.warn({ err: error, applicationName, attempt: attemptNumber }, 'LISTEN reconnect failed; retrying'),
      });
    } catch {
      return; // only close() ends the retries (the abort)
    }
    if (closed) await release(client);
    else adopt(client, true);
  }

  return {
    async start() {
      if (started || closed) throw new Error('a notification listener is started once, before close()');
      started = true;
      let client: pg.Client;
      try {
        client = await connect();
      } catch (error) {
        if (closed) return; // closed while connecting
        throw error;
      }
      if (closed) await release(client);
      else adopt(client, false);
    },

    isListening: () => current !== undefined,

    barrier: createListenBarrier(() => current && probe(current)),

    async close() {
      closed = true;
      stopping.abort();
      const client = current;
      current = undefined;
      // An attempt still connecting is let go without waiting: against a peer that never
      // answers, its end could take until the connect timeout.
      for (const other of open) if (other !== client) void release(other);
      if (client) await release(client);
    },
  };
}
