import { afterAll, beforeAll } from '@jest/globals';
import { sql } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { createEmbeddedEventLog, eventsSchemas, grantEventConsumer, type EventLog } from '../src/index.js';

// What the embedded*.test.ts files share: one database per file (real PostgreSQL), the event logs
// its tests open (closed at the end), and the stored offset of a consumer.

/** The test file's database, set by the hooks useEventLogDatabase() registers. */
export let database: TestDatabase;
/** Every event log newLog() opened in this file. */
export const logs: EventLog[] = [];

/** Gives the calling test file its database, and closes the event logs its tests opened. */
export function useEventLogDatabase(): void {
  beforeAll(async () => {
    database = await createTestDatabase({ schemas: [...eventsSchemas] });
    await grantEventConsumer(database.admin, database.appRole);
  });
  afterAll(async () => {
    await Promise.all(logs.map((l) => l.close()));
    await database?.drop();
  });
}

export function newLog(pollIntervalMs = 60_000, onError?: (error: unknown) => void): EventLog {
  const log = createEmbeddedEventLog({ db: database.app, connectionString: database.appUrl, pollIntervalMs, onError });
  logs.push(log);
  return log;
}

export async function offsetOf(consumer: string): Promise<string | undefined> {
  const { rows } = await sql<{
    position: string;
  }>`select position from events.consumer_offsets where consumer = ${consumer}`.execute(database.admin);
  return rows[0]?.position;
}
