import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql, withTenant } from '@quarry/db';
import {
  appendContentEvent,
  eventsSchemas,
  grantEventConsumer,
  toDeliveredEvent,
  type ContentCreatedV1,
  type OutboxRecord,
} from '@quarry/events';
import { prepareSource } from '@quarry/search-index';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { indexerSchemas, latestPerSource } from '../src/index.js';
import { createdOf, dumpTable, prose, tempDir, waitUntil } from './helpers.js';

// Crash: the real indexer process (src/main.ts) is SIGKILLed in the middle of the stream and
// restarted; afterwards every event is indexed exactly once. At-least-once delivery redelivers
// the batch that was in flight; the version records and content hashes make that harmless.

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const SOURCES = 170;
const SECOND_VERSIONS = 30;
const BATCH = 5;
/**
 * Deadlines only catch an indexer that is stuck. Alone this test takes ~10 s, but on a loaded
 * 2-core CI box (beside the gateway's e2e suites) process start-up and indexing run several
 * times slower, so a phase gets 90 s and the whole test 4 minutes.
 */
const PHASE_MS = 90_000;

let database: TestDatabase;
const dataDir = tempDir('crash');
const children: ChildProcess[] = [];
const output: string[] = [];

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...eventsSchemas, ...indexerSchemas] });
  await grantEventConsumer(database.admin, database.appRole);
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

function startIndexerProcess(): ChildProcess {
  const child = spawn(process.execPath, ['--import', '../../libs/testing/src/register-ts.mjs', 'src/main.ts'], {
    cwd: packageDir,
    // Only what the indexer needs: no engine URLs from the outer environment.
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: database.appUrl,
      QUARRY_DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      METRICS_PORT: '0',
      INDEXER_BATCH_SIZE: String(BATCH),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
  children.push(child);
  return child;
}

/** Fail with what the indexer printed, so a broken start is diagnosable. */
const withOutput = async <T>(promise: Promise<T>): Promise<T> =>
  promise.catch((error: Error) => {
    throw new Error(`${error.message}\n--- indexer output ---\n${output.join('').slice(-4000)}`);
  });

const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });

async function position(): Promise<number> {
  const { rows } = await sql<{
    position: string;
  }>`select position from events.consumer_offsets where consumer = 'indexer'`.execute(database.admin);
  return Number(rows[0]?.position ?? 0);
}

async function appendAll(): Promise<void> {
  const orgs = [randomUUID(), randomUUID(), randomUUID()];
  const base = Date.parse('2026-04-01T00:00:00Z');
  const input = (i: number, version: number) => ({
    orgId: orgs[i % orgs.length]!,
    sourceTable: 'research_artifact' as const,
    sourceId: `source-${i}`,
    title: `Source ${i} v${version}`,
    text: version === 1 ? prose(`esker ${i}`, i % 4 === 0 ? 45 : 6) : prose(`kame ${i} revised`, i % 3 === 0 ? 40 : 5),
    occurredAt: new Date(base + version * 3_600_000 + i),
  });
  // Every source once, then a second version (other text, other chunk count) of every fifth one.
  const order = [
    ...Array.from({ length: SOURCES }, (_, i) => input(i, 1)),
    ...Array.from({ length: SECOND_VERSIONS }, (_, k) => input(k * 5, 2)),
  ];
  for (const e of order) await withTenant(database.app, { orgId: e.orgId }, (trx) => appendContentEvent(trx, e));
}

describe('crash: SIGKILL the indexer process mid-stream, restart it', () => {
  it(
    'ends with every event indexed exactly once',
    async () => {
      await appendAll();
      const { rows: outbox } = await sql<OutboxRecord>`select * from events.outbox order by id`.execute(database.admin);
      const lastId = Number(outbox.at(-1)!.id);
      expect(outbox).toHaveLength(SOURCES + SECOND_VERSIONS);

      // First run: killed without warning once some, but not all, batches are stored.
      const first = startIndexerProcess();
      await withOutput(
        waitUntil(async () => (await position()) >= lastId / 4, PHASE_MS, 'a quarter of the events to be indexed', 10),
      );
      first.kill('SIGKILL');
      expect(await exited(first)).toEqual({ code: null, signal: 'SIGKILL' });
      const killedAt = await position();
      expect(killedAt).toBeGreaterThan(0);
      expect(killedAt).toBeLessThan(lastId);

      // Second run: resumes from the stored offset and catches up.
      const second = startIndexerProcess();
      await withOutput(
        waitUntil(async () => (await position()) === lastId, PHASE_MS, 'the restarted indexer to catch up', 100),
      );
      // Its metrics endpoint (port 0: the bound port is in the startup log line) exports the indexer's series.
      const started = output
        .join('')
        .split('\n')
        .filter((l) => l.includes('"msg":"indexer started"'))
        .at(-1)!;
      const metrics = await (await fetch(`http://127.0.0.1:${JSON.parse(started).metricsPort}/metrics`)).text();
      expect(metrics).toContain('quarry_indexer_lag_seconds');
      expect(metrics).toMatch(/quarry_indexer_events_total\{outcome="indexed",service="indexer"\} \d+/);
      second.kill('SIGTERM');
      expect(await exited(second)).toEqual({ code: 0, signal: null });

      // Exactly once: each source's newest version, once, in both indexes.
      const events = outbox.map((row) => toDeliveredEvent(row)!.event);
      const latest = latestPerSource(events);
      expect(latest).toHaveLength(SOURCES);
      const expected = latest
        .map((e) => createdOf({ event: e }))
        .flatMap((e: ContentCreatedV1) =>
          prepareSource(
            { orgId: e.orgId, sourceTable: e.sourceTable, sourceId: e.sourceId, title: e.title },
            e.text,
          ).chunks.map((c) => ({
            id: `${e.orgId}/${e.sourceTable}/${e.sourceId}/${c.chunkNo}`,
            content_hash: c.contentHash,
            text: c.text,
          })),
        )
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      expect(expected.length).toBeGreaterThan(SOURCES);
      expect(await dumpTable(`${dataDir}/search`, 'chunks_bm25')).toEqual(expected);
      const vectors = await dumpTable(`${dataDir}/search`, 'chunks_vec');
      expect(vectors.map(({ vector: _vector, ...rest }) => rest)).toEqual(expected);

      const { rows: recorded } = await sql<{ source_id: string; event_id: string; chunk_count: number }>`
      select source_id, event_id, chunk_count from indexer.indexed_sources order by org_id, source_id`.execute(
        database.admin,
      );
      expect(recorded).toHaveLength(SOURCES);
      const latestBySource = new Map(latest.map((e) => [e.sourceId, e.eventId]));
      expect(recorded.every((r) => latestBySource.get(r.source_id) === r.event_id)).toBe(true);
      expect(
        (await sql<{ n: number }>`select count(*)::int as n from events.dead_letters`.execute(database.admin)).rows[0]!
          .n,
      ).toBe(0);
      expect(await position()).toBe(lastId);
    },
    4 * 60_000,
  );
});
