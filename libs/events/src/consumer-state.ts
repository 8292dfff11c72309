import { sql, type Kysely } from 'kysely';
import { withTenant } from '@quarry/db';
import type { OutboxPosition } from './consumer-offsets.js';
import type { OutboxRecord } from './outbox-record.js';

// What an embedded subscription stores for its consumer: its position in the outbox
// (events.consumer_offsets) and the events it gave up on (events.dead_letters).

/** Where a consumer that never finished a row starts. */
export const START: OutboxPosition = { tx: '0', id: '0' };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function readPosition(db: Kysely<any>, consumer: string): Promise<OutboxPosition> {
  const { rows } = await sql<OutboxPosition>`
    select position_tx::text as tx, position::text as id from events.consumer_offsets where consumer = ${consumer}`.execute(
    db,
  );
  return rows[0] ?? START;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function storePosition(db: Kysely<any>, consumer: string, position: OutboxPosition): Promise<void> {
  await sql`
    insert into events.consumer_offsets (consumer, position_tx, position) values (${consumer}, ${position.tx}::xid8, ${position.id})
    on conflict (consumer) do update set position_tx = excluded.position_tx, position = excluded.position, updated_at = now()
      where (events.consumer_offsets.position_tx, events.consumer_offsets.position) < (excluded.position_tx, excluded.position)`.execute(
    db,
  );
}

export async function writeDeadLetter(
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
