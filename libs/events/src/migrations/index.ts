import type { Migration } from 'kysely';
import * as createEvents from './events/2026_11_21_2330_create_events.js';
import * as readInTransactionOrder from './events/2026_11_26_0400_read_in_transaction_order.js';
import * as outboxCompaction from './events/2026_11_26_0410_outbox_compaction.js';
import * as outboxHorizonPerDatabase from './events/2026_11_28_1700_outbox_horizon_per_database.js';

/**
 * The `events` schema: the transactional outbox (also the embedded event log), consumer
 * offsets and dead letters. Any service that appends events or consumes them migrates it.
 */
export const eventsSchemas: ReadonlyArray<{ schema: string; migrations: Record<string, Migration> }> = [
  {
    schema: 'events',
    migrations: {
      '2026_11_21_2330_create_events': createEvents,
      '2026_11_26_0400_read_in_transaction_order': readInTransactionOrder,
      '2026_11_26_0410_outbox_compaction': outboxCompaction,
      '2026_11_28_1700_outbox_horizon_per_database': outboxHorizonPerDatabase,
    },
  },
];
