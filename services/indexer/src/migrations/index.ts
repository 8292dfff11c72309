import type { Migration } from 'kysely';
import * as createIndexer from './indexer/2026_11_22_0010_create_indexer.js';
import * as tombstones from './indexer/2026_11_25_2100_tombstones.js';

/**
 * The indexer owns the `indexer` schema: which event version each indexed source comes from.
 * It consumes the `events` schema's outbox (`eventsSchemas` from @quarry/events), which must be
 * migrated too, and its role must be a member of quarry_event_consumer (grantEventConsumer).
 */
export const indexerSchemas: ReadonlyArray<{ schema: string; migrations: Record<string, Migration> }> = [
  {
    schema: 'indexer',
    migrations: {
      '2026_11_22_0010_create_indexer': createIndexer,
      '2026_11_25_2100_tombstones': tombstones,
    },
  },
];
