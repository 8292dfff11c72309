import { afterAll, beforeAll } from '@jest/globals';
import { sql, withTenant } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { createEmbeddedEventLog, eventsSchemas, grantEventConsumer } from '../src/index.js';
import { eventLogContract } from './contract.js';
import { appendEvents } from './helpers.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...eventsSchemas] });
  await grantEventConsumer(database.admin, database.appRole);
});
afterAll(() => database?.drop());

eventLogContract('embedded (outbox + LISTEN/NOTIFY)', () => ({
  newLog: () => createEmbeddedEventLog({ db: database.app, connectionString: database.appUrl, pollIntervalMs: 60_000 }),
  publish: (orgId, titles) => appendEvents(database.app, orgId, titles),
  deadLettered: async (consumer, orgId) => {
    const { rows } = await withTenant(database.app, { orgId }, (trx) =>
      sql<{
        event_id: string;
      }>`select event_id from events.dead_letters where consumer = ${consumer} order by outbox_id`.execute(trx),
    );
    return rows.map((r) => r.event_id);
  },
  timeoutMs: 10_000,
}));
