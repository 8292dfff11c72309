import { sql, type Kysely } from 'kysely';
import { isConsumerActive } from './consumer-admin.js';

/** A place in the outbox in the order consumers read it: (transaction id, event id). */
export interface OutboxPosition {
  tx: string;
  id: string;
}

/**
 * The last final event in the outbox, in consumer order ((0, 0) when there is none): only rows
 * of transactions older than every one still running in this database count, as in the
 * consumers' own read, so a row committed later always sorts after it. Needs a role that reads every tenant's rows (the
 * admin): `quarry reindex` takes it before reading the source tables.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function outboxHead(db: Kysely<any>): Promise<OutboxPosition> {
  const { rows } = await sql<OutboxPosition>`
    select tx::text as tx, id::text as id from events.outbox
    where tx < events.outbox_horizon()
    order by tx desc, id desc limit 1`.execute(db);
  return rows[0] ?? { tx: '0', id: '0' };
}

/**
 * Move `consumer`'s stored offset forward to `position` (its next subscription starts after
 * that event; an offset already past it stays); false, and nothing stored, when the consumer
 * has no offset: a consumer that never read the outbox (say, a Kafka deployment's indexer) must
 * not start holding its events back from compaction. Refuses while a subscription holds the consumer. Needs DML on
 * events.consumer_offsets.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function advanceConsumer(db: Kysely<any>, consumer: string, position: OutboxPosition): Promise<boolean> {
  if (!/^\d+$/.test(position.tx) || !/^\d+$/.test(position.id))
    throw new TypeError(`advanceConsumer: (${position.tx}, ${position.id}) is not an outbox position`);
  if (await isConsumerActive(db, consumer))
    throw new Error(`consumer "${consumer}" is running; stop it before moving its offset`);
  const { rows } = await sql<{ stored: boolean }>`
    with moved as (
      update events.consumer_offsets set position_tx = ${position.tx}::xid8, position = ${position.id}::bigint, updated_at = now()
      where consumer = ${consumer} and (position_tx, position) < (${position.tx}::xid8, ${position.id}::bigint)
      returning 1
    )
    select exists (select 1 from events.consumer_offsets where consumer = ${consumer}) as stored`.execute(db);
  return rows[0]?.stored === true;
}
