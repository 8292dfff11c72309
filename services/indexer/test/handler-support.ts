import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll } from '@jest/globals';
import { eventsSchemas, grantEventConsumer } from '@quarry/events';
import { createLogger } from '@quarry/telemetry';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { createIndexHandler, indexerSchemas, type IndexReport } from '../src/index.js';
import { appendEvent, openTestBackends, type TestBackends } from './helpers.js';

// What the handler*.test.ts files share: one database per file (real PostgreSQL: outbox rows,
// indexer.indexed_sources under RLS), a handler over fresh LanceDB indexes, events to feed it.

export const logger = createLogger({ service: 'indexer-test', level: 'silent' });
/** The test file's database, set by the hooks useHandlerDatabase() registers. */
export let database: TestDatabase;
const opened: TestBackends[] = [];

/** Gives the calling test file its database, and closes and removes the indexes its tests opened. */
export function useHandlerDatabase(): void {
  beforeAll(async () => {
    database = await createTestDatabase({ schemas: [...eventsSchemas, ...indexerSchemas] });
    await grantEventConsumer(database.admin, database.appRole);
  });
  afterAll(async () => {
    for (const b of opened) {
      await b.close();
      rmSync(b.dir, { recursive: true, force: true });
    }
    await database?.drop();
  });
}

export async function setup() {
  const backends = await openTestBackends();
  opened.push(backends);
  return { backends, handle: createIndexHandler({ db: database.app, backends, logger }) };
}

export const artifact = (orgId: string, sourceId: string, title: string, text: string, occurredAt?: Date) =>
  appendEvent(database, {
    orgId,
    sourceTable: 'research_artifact',
    sourceId,
    title,
    text,
    ...(occurredAt ? { occurredAt } : {}),
  });
export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
export const report = (r: Partial<IndexReport>): IndexReport => ({
  events: 0,
  deleted: 0,
  indexed: 0,
  unchanged: 0,
  stale: 0,
  chunksWritten: 0,
  chunksDeleted: 0,
  chunksEmbedded: 0,
  ...r,
});
