import type pg from 'pg';
import { sql, type Kysely } from 'kysely';
import { createSessionClient } from '@quarry/db';
import { CONSUMER_LOCK } from './consumer-admin.js';
import type { OutboxPosition } from './consumer-offsets.js';
import { readPosition, START, storePosition, writeDeadLetter } from './consumer-state.js';
import { deliver, DeliveryAborted, errorText, notifyDeadLetter, type DeliveryPlan } from './delivery.js';
import { toDeliveredEvent, type OutboxRecord } from './outbox-record.js';
import type { DeliveredEvent, EventLog, SubscribeOptions, Subscription } from './port.js';

export interface EmbeddedEventLogDeps {
  /**
   * A pool whose role is a member of `quarry_event_consumer` (the cross-tenant read path, see
   * grantEventConsumer) and may write events.consumer_offsets and events.dead_letters.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  /** Same database and role as `db`: each subscription holds one connection for LISTEN. */
  connectionString: string;
  /** Fallback re-read when no notification arrives (e.g. the LISTEN connection dropped). Default 5 s. */
  pollIntervalMs?: number;
  /** Told about errors the loop survives (database unavailable, listener lost, an onDeadLetter hook that threw). */
  onError?: (error: unknown) => void;
}

/** Outbox notifications channel (the trigger in the events migration). */
const OUTBOX_CHANNEL = 'quarry_outbox';

/** How soon a consumer looks again at rows held behind a running transaction, doubling up to the cap. */
const HELD_FIRST_WAIT_MS = 2;
const HELD_MAX_WAIT_MS = 200;

/**
 * The embedded event log: the outbox table itself, read in (transaction, id) order after a
 * stored consumer position, only rows of transactions older than every one still running (so a
 * row committing later can never sort before the position), woken by LISTEN/NOTIFY at commit (no
 * polling delay), dead letters in events.dead_letters. One active subscription per consumer name.
 */
export function createEmbeddedEventLog(deps: EmbeddedEventLogDeps): EventLog {
  const subscriptions = new Set<Subscription>();
  return {
    async subscribe(options) {
      const subscription = await startSubscription(deps, options);
      const tracked: Subscription = {
        close: async () => {
          subscriptions.delete(tracked);
          await subscription.close();
        },
      };
      subscriptions.add(tracked);
      return tracked;
    },
    async close() {
      await Promise.all([...subscriptions].map((s) => s.close()));
    },
  };
}

async function startSubscription(deps: EmbeddedEventLogDeps, options: SubscribeOptions): Promise<Subscription> {
  const { db } = deps;
  const { consumer, handler } = options;
  const batchSize = options.batchSize ?? 100;
  const maxBatchBytes = options.maxBatchBytes ?? 16 * 1024 * 1024;
  const maxAttempts = options.maxAttempts ?? 5;
  const retryDelayMs = options.retryDelayMs ?? 200;
  const pollIntervalMs = deps.pollIntervalMs ?? 5_000;
  const onError = deps.onError ?? (() => undefined);
  if (!consumer) throw new TypeError('subscribe: consumer name is required');
  if (!(batchSize >= 1)) throw new TypeError('subscribe: batchSize must be >= 1');
  if (!(maxBatchBytes >= 1)) throw new TypeError('subscribe: maxBatchBytes must be >= 1');
  if (!(maxAttempts >= 1)) throw new TypeError('subscribe: maxAttempts must be >= 1');

  let closed = false;
  let notified = false;
  // Sleepers: the idle wait ends on a notification or close; retry backoff only on close.
  const sleepers = new Set<{ byNotify: boolean; done: () => void }>();
  const wakeUp = (all: boolean) => {
    for (const s of [...sleepers]) if (all || s.byNotify) s.done();
  };
  const signal = () => {
    notified = true;
    wakeUp(false);
  };
  const pause = (ms: number, byNotify: boolean) =>
    new Promise<void>((resolve) => {
      const sleeper = {
        byNotify,
        done: () => {
          clearTimeout(timer);
          sleepers.delete(sleeper);
          resolve();
        },
      };
      const timer = setTimeout(sleeper.done, ms);
      sleepers.add(sleeper);
    });

  // The session connection LISTENs and holds the consumer's advisory lock: one active
  // instance per consumer name; others wait as standbys and take over when it goes away.
  // It is not @quarry/db's notification listener on purpose (ADR 0020): the lock makes it this
  // instance's claim on the consumer, so losing it means standing down until the lock is taken
  // again and the offset re-read, which this loop does; a standby is a normal state, not a
  // failure to retry with backoff.
  let session: pg.Client | undefined;
  const lost = (client: pg.Client) => {
    if (session !== client) return;
    session = undefined;
    signal(); // the loop reconnects now instead of after the idle wait
  };
  async function openSession(): Promise<pg.Client | undefined> {
    const client = createSessionClient({
      connectionString: deps.connectionString,
      applicationName: `quarry-events:${consumer}`,
    });
    client.on('notification', signal);
    client.on('error', (error) => {
      onError(error);
      lost(client);
    });
    client.on('end', () => lost(client));
    await client.connect();
    try {
      const { rows } = await client.query<{ ok: boolean }>(
        'select pg_try_advisory_lock(hashtext($1), hashtext($2)) as ok',
        [CONSUMER_LOCK, consumer],
      );
      if (!rows[0]?.ok) {
        await client.end();
        return undefined;
      }
      // LISTEN before the first read, so nothing committed after the read goes unnoticed.
      await client.query(`listen ${OUTBOX_CHANNEL}`);
      return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
  }

  session = await openSession();
  let position: OutboxPosition = session ? await readPosition(db, consumer) : START;
  const commitRow = async (row: OutboxRecord) => {
    const next = { tx: row.tx, id: row.id };
    await storePosition(db, consumer, next);
    position = next;
  };
  // Store the dead letter, then tell the subscriber (the offset moves past it afterwards).
  const deadLetter = async (row: OutboxRecord, delivered: DeliveredEvent | null, attempts: number, error: string) => {
    await writeDeadLetter(db, consumer, row, attempts, error);
    const { topic, key } = row;
    notifyDeadLetter(
      options.onDeadLetter,
      { consumer, offset: String(row.id), topic, key, event: delivered?.event ?? null, attempts, error },
      onError,
    );
  };
  type Item = { row: OutboxRecord; delivered: DeliveredEvent };
  const plan: DeliveryPlan<Item> = {
    handler: (batch) => handler(batch.map((i) => i.delivered)),
    maxAttempts,
    retryDelayMs,
    isTransient: options.isTransient,
    isClosed: () => closed,
    sleep: (ms) => (closed ? Promise.resolve() : pause(ms, false)),
    commit: (last) => commitRow(last.row),
    deadLetter: (item, attempts, error) => deadLetter(item.row, item.delivered, attempts, errorText(error)),
  };

  // 'idle': nothing after the position; 'held': committed rows wait behind an older
  // transaction still running, which may end without a notification, so look again soon.
  async function step(): Promise<'worked' | 'idle' | 'held'> {
    const { rows } = await sql<OutboxRecord>`
      select * from events.read_outbox_committed(${position.tx}::xid8, ${position.id}, ${batchSize}, ${maxBatchBytes})`.execute(
      db,
    );
    if (rows.length === 0) {
      const held = await sql<{ held: boolean }>`
        select events.outbox_held(${position.tx}::xid8, ${position.id}) as held`.execute(db);
      return held.rows[0]?.held ? 'held' : 'idle';
    }
    // Events up to the first undecodable one go to the handler; that one is dead-lettered
    // at once (retrying cannot fix it) and the next read continues after it.
    const items: Item[] = [];
    let poison: OutboxRecord | undefined;
    for (const row of rows) {
      const delivered = toDeliveredEvent(row);
      if (!delivered) {
        poison = row;
        break;
      }
      items.push({ row, delivered });
    }
    await deliver(items, plan);
    if (poison && !closed) {
      await deadLetter(poison, null, 1, 'invalid payload: not a content.created v1 event for its org');
      await commitRow(poison);
    }
    return 'worked';
  }

  let heldWaitMs = HELD_FIRST_WAIT_MS;
  const loop = (async () => {
    while (!closed) {
      notified = false;
      try {
        if (!session) {
          session = await openSession();
          if (!session) {
            await pause(pollIntervalMs, false); // standby: another instance holds the consumer
            continue;
          }
          position = await readPosition(db, consumer); // it may have moved while we were away
        }
        const outcome = await step();
        if (outcome === 'held') {
          if (!notified && !closed) await pause(heldWaitMs, true);
          heldWaitMs = Math.min(heldWaitMs * 2, HELD_MAX_WAIT_MS);
          continue;
        }
        heldWaitMs = HELD_FIRST_WAIT_MS;
        if (outcome === 'idle' && !notified && !closed) await pause(pollIntervalMs, true);
      } catch (error) {
        if (error instanceof DeliveryAborted) break;
        onError(error);
        if (!closed) await pause(Math.min(pollIntervalMs, 1_000), false);
      }
    }
  })();

  return {
    async close() {
      if (!closed) {
        closed = true;
        wakeUp(true);
      }
      await loop;
      const last = session;
      session = undefined;
      await last?.end().catch(() => undefined);
    },
  };
}
