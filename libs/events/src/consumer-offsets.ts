import { sql, type Kysely } from 'kysely';
import { isConsumerActive } from './embedded.js';

/**
 * The id of the newest event in the outbox ('0' when it is empty). Needs a role that reads
 * every tenant's rows (the admin): `quarry reindex` takes it before reading the source tables.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function outboxHead(db: Kysely<any>): Promise<string> {
  const { rows } = await sql<{ head: string | null }>`select max(id)::text as head from events.outbox`.execute(db);
  return rows[0]?.head ?? '0';
}

/**
 * Move `consumer`'s stored offset forward to `position` (its next subscription starts after
 * that event; an offset already past it stays); false, and nothing stored, when the consumer
 * has no offset: a consumer that never read the outbox (say, a Kafka deployment's indexer) must
 * not start holding its events back from compaction. Refuses while a subscription holds the consumer. Needs DML on
 * events.consumer_offsets.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function advanceConsumer(db: Kysely<any>, consumer: string, position: string): Promise<boolean> {
  if (!/^\d+$/.test(position)) throw new TypeError(`advanceConsumer: "${position}" is not an outbox id`);
  if (await isConsumerActive(db, consumer))
    throw new Error(`consumer "${consumer}" is running; stop it before moving its offset`);
  const result = await sql`
    update events.consumer_offsets set position = greatest(position, ${position}::bigint), updated_at = now()
    where consumer = ${consumer}`.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}
