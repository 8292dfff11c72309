import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql, withTenant } from '@quarry/db';
import { appendContentEvent, createEmbeddedEventLog, eventsSchemas, grantEventConsumer } from '@quarry/events';
import { createLocalEmbedder, EmbeddingHttpError, openLanceVectorIndex } from '@quarry/search-index';
import { createLogger, createMetrics, startMetricsServer } from '@quarry/telemetry';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { indexerSchemas, startIndexConsumer, startIndexer, type IndexConsumer } from '../src/index.js';
import { countingEmbedder, openTestBackends, prose, tempDir, waitUntil, type TestBackends } from './helpers.js';

// The running indexer over the embedded event log (the outbox, real PostgreSQL): it consumes
// what producers append, reports lag while events wait, and exports its metrics.

const logger = createLogger({ service: 'indexer-test', level: 'silent' });
/**
 * Waits end on their condition; the deadlines only catch a hang. They are generous because a
 * loaded 2-core CI box (these suites beside the gateway's e2e suites) runs everything several
 * times slower than a quiet machine; TEST_MS bounds a whole test that contains such waits.
 */
const WAIT_MS = 30_000;
const TEST_MS = 120_000;
let database: TestDatabase;
const cleanup: Array<() => Promise<void>> = [];

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...eventsSchemas, ...indexerSchemas] });
  await grantEventConsumer(database.admin, database.appRole);
});
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
  await database?.drop();
});

async function backends(embedder = countingEmbedder()): Promise<TestBackends> {
  const b = await openTestBackends(undefined, embedder);
  cleanup.push(async () => {
    await b.close();
    rmSync(b.dir, { recursive: true, force: true });
  });
  return b;
}

async function append(orgId: string, count: number, topic: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const sourceId = randomUUID();
    await withTenant(database.app, { orgId }, (trx) =>
      appendContentEvent(trx, {
        orgId,
        sourceTable: 'research_artifact',
        sourceId,
        title: `${topic} ${i}`,
        text: prose(`${topic} ${i}`, 10),
      }),
    );
    ids.push(sourceId);
  }
  return ids;
}

const metric = (text: string, name: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  if (!line) throw new Error(`metric ${name} not exported`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
};

describe('startIndexer (the outbox as event log)', () => {
  it(
    'indexes what producers append to the outbox, and stops cleanly',
    async () => {
      const b = await backends();
      const indexer = await startIndexer({
        databaseUrl: database.appUrl,
        backends: b,
        logger,
        host: '127.0.0.1',
        consumer: 'embedded-e2e',
        batchSize: 3,
      });
      const org = randomUUID();
      const sources = await append(org, 7, 'pingo');
      await waitUntil(
        async () => (await b.bm25.search('pingo', { orgId: org, limit: 50 })).length === 7,
        WAIT_MS,
        'seven sources searchable',
      );
      await waitUntil(async () => (await indexer.lag()).pending === 0, WAIT_MS, 'caught up');
      const hits = await b.vectors.search(createLocalEmbedder().embedOne('pingo 3'), { orgId: org, limit: 1 });
      expect(hits.map((h) => h.sourceId)).toEqual([sources[3]]);
      await indexer.close();
      // Closed means closed: what is appended now waits in the outbox for the next start.
      await append(org, 1, 'pingo');
      await new Promise((r) => setTimeout(r, 300));
      expect(await b.bm25.search('pingo', { orgId: org, limit: 50 })).toHaveLength(7);
      const { rows } = await sql<{ pending: string }>`select pending from events.consumer_lag('embedded-e2e')`.execute(
        database.admin,
      );
      expect(Number(rows[0]!.pending)).toBe(1);
    },
    TEST_MS,
  );

  it('refuses to start when the embedder does not match the vector index', async () => {
    const b = await backends();
    const other = createLocalEmbedder({ dimension: 64 });
    const dir = tempDir('mismatch');
    const vectors = await openLanceVectorIndex({ dir, embedder: await other.identity() });
    cleanup.push(async () => {
      await vectors.close();
      rmSync(dir, { recursive: true, force: true });
    });
    await expect(
      startIndexer({
        databaseUrl: database.appUrl,
        backends: { ...b, vectors },
        logger,
        host: '127.0.0.1',
        consumer: 'mismatch',
      }),
    ).rejects.toThrow(/quarry reindex/);
  });
});

describe('lag', () => {
  it(
    'reports pending events and their age while they wait, zero once indexed, and exports the gauges',
    async () => {
      // The embedder waits for a gate, so the first batch stays in flight while we look.
      let open!: () => void;
      const gate = new Promise<void>((r) => (open = r));
      const real = countingEmbedder();
      const gated = {
        ...real,
        identity: real.identity,
        embed: async (texts: readonly string[]) => (await gate, real.embed(texts)),
      };
      const b = await backends(real);
      const metrics = createMetrics({ service: 'indexer-test' });
      const db = database.app;
      const eventLog = createEmbeddedEventLog({ db, connectionString: database.appUrl });
      cleanup.push(() => eventLog.close());

      // A consumer that starts at the current end of the log: only this test's events count.
      await sql`insert into events.consumer_offsets (consumer, position_tx, position) select 'lag-test', coalesce(max(tx), '0'), coalesce(max(id), 0) from events.outbox`.execute(
        database.admin,
      );
      const org = randomUUID();
      await append(org, 6, 'tor');
      await new Promise((r) => setTimeout(r, 20)); // the oldest pending event is measurably old

      const indexer: IndexConsumer = await startIndexConsumer({
        db,
        eventLog,
        backends: { ...b, embedder: gated },
        logger,
        metrics,
        consumer: 'lag-test',
        batchSize: 4,
        lagIntervalMs: 25,
      });
      cleanup.push(() => indexer.close());
      const waiting = await indexer.lag();
      expect(waiting.pending).toBe(6);
      expect(waiting.oldestPendingAgeMs).toBeGreaterThan(0);
      await waitUntil(
        async () => metric(await metrics.registry.metrics(), 'quarry_indexer_pending_events') === 6,
        WAIT_MS,
        'pending gauge',
      );
      const text = await metrics.registry.metrics();
      expect(metric(text, 'quarry_indexer_lag_seconds')).toBeGreaterThan(0);

      open();
      await waitUntil(async () => (await indexer.lag()).pending === 0, WAIT_MS, 'caught up');
      expect(await indexer.lag()).toEqual({ pending: 0, oldestPendingAgeMs: null });
      await waitUntil(
        async () => metric(await metrics.registry.metrics(), 'quarry_indexer_pending_events') === 0,
        WAIT_MS,
        'pending gauge at 0',
      );
      const after = await metrics.registry.metrics();
      expect(metric(after, 'quarry_indexer_lag_seconds')).toBe(0);
      expect(after).toContain('quarry_indexer_events_total{outcome="indexed",service="indexer-test"} 6');
      expect(metric(after, 'quarry_indexer_chunks_written_total')).toBe(6);
      expect(metric(after, 'quarry_indexer_chunks_embedded_total')).toBe(6);
      expect(after).toContain('quarry_indexer_batch_duration_seconds_count{service="indexer-test"} 2');
      expect(real.calls).toBe(2); // one embed call per batch (4 + 2 events)
    },
    TEST_MS,
  );
});

describe('dead letters', () => {
  it(
    'dead-letters an event the embedding provider always refuses, counts it in /metrics, and indexes the rest',
    async () => {
      // The provider refuses one input for good (HTTP 400: the event's own fault, not an outage).
      const real = countingEmbedder();
      const refusing = {
        ...real,
        identity: real.identity,
        embed: async (texts: readonly string[]) => {
          if (texts.some((t) => t.includes('unembeddable')))
            throw new EmbeddingHttpError(400, 'input rejected by the provider');
          return real.embed(texts);
        },
      };
      const b = await backends(real);
      const metrics = createMetrics({ service: 'indexer-test' });
      const server = await startMetricsServer({ registry: metrics.registry, host: '127.0.0.1', port: 0 });
      cleanup.push(() => server.close());
      const scrape = async () => (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
      const db = database.app;
      const eventLog = createEmbeddedEventLog({ db, connectionString: database.appUrl });
      cleanup.push(() => eventLog.close());

      await sql`insert into events.consumer_offsets (consumer, position_tx, position) select 'dead-letter-test', coalesce(max(tx), '0'), coalesce(max(id), 0) from events.outbox`.execute(
        database.admin,
      );
      const org = randomUUID();
      const [before] = await append(org, 1, 'quokka');
      const poison = await withTenant(database.app, { orgId: org }, (trx) =>
        appendContentEvent(trx, {
          orgId: org,
          sourceTable: 'research_artifact',
          sourceId: randomUUID(),
          title: 'refused',
          text: 'unembeddable text',
        }),
      );
      const [after] = await append(org, 1, 'wombat');

      const indexer = await startIndexConsumer({
        db,
        eventLog,
        backends: { ...b, embedder: refusing },
        logger,
        metrics,
        consumer: 'dead-letter-test',
        batchSize: 10,
      });
      cleanup.push(() => indexer.close());
      // Exported from the start (retries take seconds before anything is given up on).
      expect(metric(await scrape(), 'quarry_indexer_dead_letters_total')).toBe(0);

      await waitUntil(
        async () => metric(await scrape(), 'quarry_indexer_dead_letters_total') === 1,
        WAIT_MS,
        'the dead letter counted',
      );
      await waitUntil(async () => (await indexer.lag()).pending === 0, WAIT_MS, 'caught up');
      const letters = await withTenant(database.app, { orgId: org }, (trx) =>
        sql<{
          event_id: string;
          attempts: number;
          error: string;
        }>`select event_id, attempts, error from events.dead_letters where consumer = 'dead-letter-test'`.execute(trx),
      );
      expect(letters.rows).toEqual([
        { event_id: poison.eventId, attempts: 5, error: 'EmbeddingHttpError: input rejected by the provider' },
      ]);
      expect((await b.bm25.search('quokka', { orgId: org, limit: 5 })).map((h) => h.sourceId)).toEqual([before]);
      expect((await b.bm25.search('wombat', { orgId: org, limit: 5 })).map((h) => h.sourceId)).toEqual([after]);
      expect(await scrape()).toContain('quarry_indexer_dead_letters_total{service="indexer-test"} 1');
    },
    TEST_MS,
  );
});
