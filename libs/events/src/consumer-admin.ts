import { sql, type Kysely } from 'kysely';

// Operations on event consumers from outside their subscriptions: granting the cross-tenant
// read path (setup), measuring lag (the indexer's lag probe), and checking whether a consumer
// is running or rewinding it (`quarry reindex`).

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

/** The advisory-lock namespace a live subscription holds its consumer's lock in (with the consumer's name). */
export const CONSUMER_LOCK = 'quarry_events_consumer';

/**
 * Whether a live subscription holds `consumer` (its advisory lock is taken), e.g. so that
 * `quarry reindex` refuses to rewind the indexer under a running `quarry start`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function isConsumerActive(db: Kysely<any>, consumer: string): Promise<boolean> {
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{ ok: boolean }>`
      select pg_try_advisory_lock(hashtext(${CONSUMER_LOCK}), hashtext(${consumer})) as ok`.execute(conn);
    if (!rows[0]?.ok) return true;
    await sql`select pg_advisory_unlock(hashtext(${CONSUMER_LOCK}), hashtext(${consumer}))`.execute(conn);
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
