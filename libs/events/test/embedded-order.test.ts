import { describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { sql, withTenant } from '@quarry/db';
import { appendContentEvent, type DeliveredEvent } from '../src/index.js';
import { appendEvents, titleOf, waitFor } from './helpers.js';
import { database, newLog, useEventLogDatabase } from './embedded-support.js';

// Writers append without any lock, so transactions commit in any order; the consumer reads
// only rows of transactions older than every one still running, and never skips a row.

useEventLogDatabase();

/** A transaction of `orgId` left open after `work` until release() is called. */
function openTransaction(orgId: string, work: (trx: Parameters<Parameters<typeof withTenant>[2]>[0]) => Promise<void>) {
  let release!: () => void;
  let ready!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const worked = new Promise<void>((resolve) => (ready = resolve));
  const done = withTenant(database.app, { orgId }, async (trx) => {
    await work(trx);
    ready();
    await released;
  });
  return { worked, release, done };
}

const event = (orgId: string, title: string) => ({
  orgId,
  sourceTable: 'research_artifact' as const,
  sourceId: randomUUID(),
  title,
  text: `text of ${title}`,
});

describe('embedded event log without a global lock', () => {
  it('delivers a row whose transaction commits after a later row, and never skips it', async () => {
    const org = randomUUID();
    const seen: DeliveredEvent[] = [];
    await newLog().subscribe({
      consumer: 'late-commit',
      handler: async (batch) => void seen.push(...batch.filter((e) => e.event.orgId === org)),
    });
    // "early" gets the lower outbox id and the older transaction, but commits last.
    const early = openTransaction(org, async (trx) => void (await appendContentEvent(trx, event(org, 'early'))));
    await early.worked;
    await appendEvents(database.app, org, ['late']);
    await new Promise((r) => setTimeout(r, 300));
    expect(seen.map(titleOf)).toEqual([]); // "late" waits behind the running older transaction

    early.release();
    await early.done;
    await waitFor(() => seen.length >= 2, 5_000, 'both events');
    expect(seen.map(titleOf)).toEqual(['early', 'late']);
  });

  it('looks again by itself when the transaction it waited for wrote no event (no notification)', async () => {
    const org = randomUUID();
    const titles: string[] = [];
    // Fallback poll of a minute: only the consumer's own re-check can deliver within the wait below.
    await newLog(60_000).subscribe({
      consumer: 'held-by-other-write',
      handler: async (batch) => void titles.push(...batch.filter((e) => e.event.orgId === org).map(titleOf)),
    });
    const other = openTransaction(org, async (trx) => void (await sql`select pg_current_xact_id()`.execute(trx)));
    await other.worked;
    await appendEvents(database.app, org, ['behind']);
    await new Promise((r) => setTimeout(r, 300));
    expect(titles).toEqual([]);

    other.release();
    await other.done;
    await waitFor(() => titles.includes('behind'), 2_000, 'delivery once the older transaction ended');
  });

  it('resumes after a stored position without redelivering or skipping, whatever the commit order', async () => {
    const org = randomUUID();
    // Three open at once: the test pool has four connections.
    const writers = Array.from({ length: 3 }, (_, i) =>
      openTransaction(org, async (trx) => void (await appendContentEvent(trx, event(org, `w${i}`)))),
    );
    await Promise.all(writers.map((w) => w.worked));
    // Commit in reverse order of their appends.
    for (const w of [...writers].reverse()) {
      w.release();
      await w.done;
    }
    const first: string[] = [];
    const log = newLog();
    const sub = await log.subscribe({
      consumer: 'resume',
      batchSize: 2,
      handler: async (batch) => void first.push(...batch.filter((e) => e.event.orgId === org).map(titleOf)),
    });
    await waitFor(() => first.length >= 3, 5_000, 'the first 3');
    await sub.close();
    await appendEvents(database.app, org, ['after']);
    const second: string[] = [];
    await newLog().subscribe({
      consumer: 'resume',
      handler: async (batch) => void second.push(...batch.filter((e) => e.event.orgId === org).map(titleOf)),
    });
    await waitFor(() => second.includes('after'), 5_000, 'the event after the restart');
    expect(new Set(first).size).toBe(3);
    expect(second).toEqual(['after']);
  });

  it('bounds a batch by payload bytes as well as by count, always taking at least one event', async () => {
    const org = randomUUID();
    await sql`insert into events.consumer_offsets (consumer, position_tx, position) select 'bytes', coalesce(max(tx), '0'), coalesce(max(id), 0) from events.outbox`.execute(
      database.admin,
    );
    // Three events of ~200 kB of text that does not compress, each alone in a batch under a 100 kB bound.
    for (const title of ['big1', 'big2', 'big3'])
      await withTenant(database.app, { orgId: org }, (trx) =>
        appendContentEvent(trx, { ...event(org, title), text: randomBytes(150_000).toString('base64') }),
      );
    const batches: string[][] = [];
    await newLog().subscribe({
      consumer: 'bytes',
      batchSize: 10,
      maxBatchBytes: 100_000,
      handler: async (batch) => void batches.push(batch.filter((e) => e.event.orgId === org).map(titleOf)),
    });
    await waitFor(() => batches.flat().length >= 3, 5_000, 'the three events');
    expect(batches).toEqual([['big1'], ['big2'], ['big3']]);
  });
});
