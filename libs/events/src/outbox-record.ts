import { ContentEventV1Schema } from './content-event.js';
import type { DeliveredEvent } from './port.js';

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

/** Map an outbox row to what handlers receive; null when the payload is not a valid event. */
export function toDeliveredEvent(row: OutboxRecord): DeliveredEvent | null {
  const parsed = ContentEventV1Schema.safeParse(row.payload);
  if (!parsed.success || parsed.data.orgId !== row.org_id || parsed.data.type !== row.topic) return null;
  return { offset: String(row.id), topic: row.topic, key: row.key, headers: row.headers ?? {}, event: parsed.data };
}
