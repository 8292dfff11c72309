import type pg from 'pg';
import { sql, type Kysely } from 'kysely';
import { createSessionClient, withTenant } from '@quarry/db';
import { ContentEventV1Schema } from './content-event.js';
import { deliver, DeliveryAborted, errorText, notifyDeadLetter, type DeliveryPlan } from './delivery.js';
import type { DeliveredEvent, EventLog, SubscribeOptions, Subscription } from './port.js';

/** An `events.outbox` row as `events.read_outbox_committed` returns it. */
export interface OutboxRecord {
  id: string;
  /** The inserting transaction's id (xid8 as text): with `id`, the order consumers read in. */
  tx: string;
  event_id: string;
  org_id: string;
  topic: string;
  key: string;
  payload: unknown;
  headers: Record<string, string>;
  created_at: Date;
}

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

/** Map an outbox row to what handlers receive; null when the payload is not a valid event. */
export function toDeliveredEvent(row: OutboxRecord): DeliveredEvent | null {
  const parsed = ContentEventV1Schema.safeParse(row.payload);
  if (!parsed.success || parsed.data.orgId !== row.org_id || parsed.data.type !== row.topic) return null;
  return { offset: String(row.id), topic: row.topic, key: row.key, headers: row.headers ?? {}, event: parsed.data };
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
        `select pg_try_advisory_lock(hashtext('quarry_events_consumer'), hashtext($1)) as ok`,
        [consumer],
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
  let position: Position = session ? await readPosition(db, consumer) : START;
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

/** A consumer's place in the outbox: the (tx, id) of the last row it finished. */
interface Position {
  tx: string;
  id: string;
}
const START: Position = { tx: '0', id: '0' };

/** How soon a consumer looks again at rows held behind a running transaction, doubling up to the cap. */
const HELD_FIRST_WAIT_MS = 2;
const HELD_MAX_WAIT_MS = 200;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function readPosition(db: Kysely<any>, consumer: string): Promise<Position> {
  const { rows } = await sql<Position>`
    select position_tx::text as tx, position::text as id from events.consumer_offsets where consumer = ${consumer}`.execute(
    db,
  );
  return rows[0] ?? START;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function storePosition(db: Kysely<any>, consumer: string, position: Position): Promise<void> {
  await sql`
    insert into events.consumer_offsets (consumer, position_tx, position) values (${consumer}, ${position.tx}::xid8, ${position.id})
    on conflict (consumer) do update set position_tx = excluded.position_tx, position = excluded.position, updated_at = now()
      where (events.consumer_offsets.position_tx, events.consumer_offsets.position) < (excluded.position_tx, excluded.position)`.execute(
    db,
  );
}

async function writeDeadLetter(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  consumer: string,
  row: OutboxRecord,
  attempts: number,
  error: string,
): Promise<void> {
  // Written as the event's own tenant: dead letters are tenant data like the event itself.
  await withTenant(db, { orgId: row.org_id }, (trx) =>
    sql`
      insert into events.dead_letters (consumer, outbox_id, event_id, org_id, topic, key, payload, headers, attempts, error)
      values (${consumer}, ${row.id}, ${row.event_id}, ${row.org_id}, ${row.topic}, ${row.key},
              ${JSON.stringify(row.payload)}::jsonb, ${JSON.stringify(row.headers ?? {})}::jsonb, ${attempts}, ${error})
      on conflict (consumer, outbox_id) do nothing`.execute(trx),
  );
}

/**
 * How far `consumer` is behind: events after its stored offset and the age of the oldest one
 * (null when caught up). Needs the quarry_event_consumer role, like reading.
 */
export async function consumerLag(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  consumer: string,
): Promise<{ pending: number; oldestPendingAgeMs: number | null }> {
  const { rows } = await sql<{ pending: string; age_ms: number | null }>`
    select pending, (extract(epoch from (clock_timestamp() - oldest_pending_at)) * 1000)::float8 as age_ms
    from events.consumer_lag(${consumer})`.execute(db);
  const row = rows[0];
  return { pending: Number(row?.pending ?? 0), oldestPendingAgeMs: row?.age_ms ?? null };
}

/**
 * Let `role` (a login role, e.g. the indexer's) use the consumers' cross-tenant read path.
 * Run as the admin after migrating; idempotent.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function grantEventConsumer(adminDb: Kysely<any>, role: string): Promise<void> {
  await sql`grant quarry_event_consumer to ${sql.id(role)}`.execute(adminDb);
}

/**
 * Whether a live subscription holds `consumer` (its advisory lock is taken), e.g. so that
 * `quarry reindex` refuses to rewind the indexer under a running `quarry start`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function isConsumerActive(db: Kysely<any>, consumer: string): Promise<boolean> {
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{ ok: boolean }>`
      select pg_try_advisory_lock(hashtext('quarry_events_consumer'), hashtext(${consumer})) as ok`.execute(conn);
    if (!rows[0]?.ok) return true;
    await sql`select pg_advisory_unlock(hashtext('quarry_events_consumer'), hashtext(${consumer}))`.execute(conn);
    return false;
  });
}

/**
 * Rewind `consumer` to the start of the outbox (the next subscription replays every event).
 * Refuses while a subscription holds the consumer. Needs DML on events.consumer_offsets.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function rewindConsumer(db: Kysely<any>, consumer: string): Promise<void> {
  if (await isConsumerActive(db, consumer))
    throw new Error(`consumer "${consumer}" is running; stop it before rewinding`);
  await sql`delete from events.consumer_offsets where consumer = ${consumer}`.execute(db);
}
