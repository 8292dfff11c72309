import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventsSchemas, grantEventConsumer, type DeliveredEvent } from '@quarry/events';
import { createLogger } from '@quarry/telemetry';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { createIndexHandler, indexerSchemas } from '../src/index.js';
import { appendEvent, openTestBackends, prose } from './helpers.js';

/**
 * The handler's cost per event (real PostgreSQL, real LanceDB, local embedder) at two batch
 * sizes, for fresh events and for their redelivery, as quoted in the README. Opt-in
 * (`npm run measure`): it takes about a minute and its numbers depend on the machine.
 */
const enabled = process.env.QUARRY_INDEXER_MEASURE === '1';
const logger = createLogger({ service: 'indexer-measure', level: 'silent' });
let database: TestDatabase;

(enabled ? describe : describe.skip)(
  `indexer cost per event${enabled ? '' : ' — skipped unless QUARRY_INDEXER_MEASURE=1 (npm run measure)'}`,
  () => {
    beforeAll(async () => {
      database = await createTestDatabase({ schemas: [...eventsSchemas, ...indexerSchemas] });
      await grantEventConsumer(database.admin, database.appRole);
    });
    afterAll(async () => {
      await database?.drop();
    });

    /** `count` fresh events of ~2 chunks each over 4 orgs, as the outbox delivers them. */
    async function events(count: number): Promise<DeliveredEvent[]> {
      const orgs = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      const out: DeliveredEvent[] = [];
      for (let i = 0; i < count; i++) {
        out.push(
          await appendEvent(database, {
            orgId: orgs[i % 4]!,
            sourceTable: 'research_artifact',
            sourceId: randomUUID(),
            title: `Source ${i}`,
            text: prose(`topic ${i}`, 40),
          }),
        );
      }
      return out;
    }

    it.each([
      [5, 100],
      [100, 500],
    ])(
      'batch size %i (%i events)',
      async (batchSize, count) => {
        const backends = await openTestBackends();
        try {
          const handle = createIndexHandler({ db: database.app, backends, logger });
          const all = await events(count);
          await handle(await events(batchSize)); // warm up (tables, indexes, connections)
          const run = async (): Promise<{ msPerEvent: number; indexed: number; unchanged: number }> => {
            let indexed = 0;
            let unchanged = 0;
            const t0 = performance.now();
            for (let i = 0; i < all.length; i += batchSize) {
              const r = await handle(all.slice(i, i + batchSize));
              indexed += r.indexed;
              unchanged += r.unchanged;
            }
            return { msPerEvent: (performance.now() - t0) / all.length, indexed, unchanged };
          };
          const fresh = await run();
          const again = await run();
          expect(fresh.indexed).toBe(count);
          expect(again.unchanged).toBe(count);
          console.log(
            `batch ${batchSize}: fresh ${fresh.msPerEvent.toFixed(2)} ms/event, redelivery ${again.msPerEvent.toFixed(2)} ms/event (${count} events)`,
          );
        } finally {
          await backends.close();
          rmSync(backends.dir, { recursive: true, force: true });
        }
      },
      300_000,
    );
  },
);
