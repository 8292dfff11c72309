import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { sql } from '@quarry/db';
import { compactOutbox, startOutboxCompaction, type DeliveredEvent } from '../src/index.js';
import { appendEvents, titleOf, waitFor } from './helpers.js';
import { database, newLog, useEventLogDatabase } from './embedded-support.js';

// Outbox compaction against real PostgreSQL: consumed and old events go, in bounded batches;
// unconsumed or recent ones stay; the slowest consumer holds everything after its offset.

useEventLogDatabase();

const DAY = 86_400_000;

/** Every org's outbox rows, as the admin sees them: ids and titles, in order. */
async function outbox(): Promise<{ id: string; title: string }[]> {
  const { rows } = await sql<{ id: string; title: string }>`
    select id::text as id, payload->>'title' as title from events.outbox o order by o.id`.execute(database.admin);
  return rows;
}

async function ageAll(days: number, upTo?: string): Promise<void> {
  await sql`update events.outbox set created_at = now() - make_interval(days => ${days})
            where ${upTo ?? null}::bigint is null or id <= ${upTo ?? null}::bigint`.execute(database.admin);
}

/** Store `consumer`'s position as having finished the event with this id (its transaction and id). */
async function setOffset(consumer: string, position: string): Promise<void> {
  await sql`insert into events.consumer_offsets (consumer, position_tx, position)
            select ${consumer}, o.tx, o.id from events.outbox o where o.id = ${position}::bigint
            on conflict (consumer) do update set position_tx = excluded.position_tx, position = excluded.position`.execute(
    database.admin,
  );
}

async function reset(): Promise<void> {
  await sql`truncate events.outbox, events.consumer_offsets`.execute(database.admin);
}

describe('compactOutbox', () => {
  it('deletes nothing while no consumer has stored an offset, however old the events', async () => {
    await reset();
    await appendEvents(database.app, randomUUID(), ['a', 'b']);
    await ageAll(30);
    expect(await compactOutbox(database.app, { retentionMs: 7 * DAY })).toBe(0);
    expect((await outbox()).map((r) => r.title)).toEqual(['a', 'b']);
  });

  it('deletes events every consumer passed and older than the retention, across orgs; keeps the rest', async () => {
    await reset();
    const [orgA, orgB] = [randomUUID(), randomUUID()];
    await appendEvents(database.app, orgA, ['a1', 'a2']);
    await appendEvents(database.app, orgB, ['b1']);
    await appendEvents(database.app, orgA, ['a3']);
    await appendEvents(database.app, orgB, ['b2', 'b3']);
    const ids = (await outbox()).map((r) => r.id);
    await ageAll(30, ids[4]); // a1..b2 are old, b3 is new
    await setOffset('fast', ids[5]!); // passed everything
    await setOffset('slow', ids[3]!); // passed a1, a2, b1, a3

    // The app role (a member of quarry_event_consumer) compacts every tenant's rows.
    expect(await compactOutbox(database.app, { retentionMs: 7 * DAY })).toBe(4);
    // b2 is old but the slow consumer has not passed it; b3 is consumed by both but recent.
    expect((await outbox()).map((r) => r.title)).toEqual(['b2', 'b3']);

    await setOffset('slow', ids[5]!);
    expect(await compactOutbox(database.app, { retentionMs: 7 * DAY })).toBe(1);
    expect((await outbox()).map((r) => r.title)).toEqual(['b3']);
    // A retention of zero lets the consumed recent event go too.
    expect(await compactOutbox(database.app, { retentionMs: 0 })).toBe(1);
    expect(await outbox()).toEqual([]);
  });

  it('keeps an event of a transaction that committed after the position, even with a lower id', async () => {
    await reset();
    await appendEvents(database.app, randomUUID(), ['early', 'late', 'passed']);
    const ids = (await outbox()).map((r) => r.id);
    await setOffset('all', ids[2]!);
    // 'late' took its id before 'passed' but its transaction committed after the consumer's
    // position: consumers read in (transaction, id) order, so it is still ahead of them.
    await sql`update events.outbox set tx = ((select tx from events.outbox where id = ${ids[2]}::bigint)::text::bigint + 1)::text::xid8
              where id = ${ids[1]}::bigint`.execute(database.admin);
    await ageAll(30);
    expect(await compactOutbox(database.app, { retentionMs: DAY })).toBe(2);
    expect((await outbox()).map((r) => r.title)).toEqual(['late']);
  });

  it('works in bounded batches: maxBatches stops early and the next call continues', async () => {
    await reset();
    await appendEvents(database.app, randomUUID(), ['1', '2', '3', '4', '5']);
    const ids = (await outbox()).map((r) => r.id);
    await ageAll(30);
    await setOffset('all', ids[4]!);
    expect(await compactOutbox(database.app, { retentionMs: DAY, batchSize: 2, maxBatches: 1 })).toBe(2);
    expect((await outbox()).map((r) => r.title)).toEqual(['3', '4', '5']);
    expect(await compactOutbox(database.app, { retentionMs: DAY, batchSize: 2 })).toBe(3);
    expect(await outbox()).toEqual([]);
  });

  it('leaves app.org_id of the calling transaction as it was', async () => {
    await reset();
    const org = randomUUID();
    await appendEvents(database.app, org, ['x']);
    await setOffset('all', (await outbox())[0]!.id);
    const after = await database.app.transaction().execute(async (trx) => {
      await sql`select set_config('app.org_id', ${org}, true)`.execute(trx);
      await sql`select events.compact_outbox('0 seconds'::interval, 10)`.execute(trx);
      const { rows } = await sql<{ v: string }>`select current_setting('app.org_id', true) as v`.execute(trx);
      return rows[0]!.v;
    });
    expect(after).toBe(org);
    expect(await outbox()).toEqual([]);
  });

  it('refuses a negative retention before any SQL runs', async () => {
    await expect(compactOutbox(database.app, { retentionMs: -1 })).rejects.toThrow(/retentionMs/);
  });
});

describe('startOutboxCompaction with a live consumer', () => {
  it('runs at once, then on demand; events a real subscription consumed go, the slow consumer holds the rest', async () => {
    await reset();
    const org = randomUUID();
    await appendEvents(database.app, org, ['e1', 'e2', 'e3']);
    const ids = (await outbox()).map((r) => r.id);
    await setOffset('laggard', ids[0]!); // has only processed e1

    const seen: string[] = [];
    const sub = await newLog(200).subscribe({
      consumer: 'live',
      handler: async (batch: readonly DeliveredEvent[]) => void seen.push(...batch.map(titleOf)),
    });
    await waitFor(() => seen.length === 3, 10_000, 'the live consumer');
    await sub.close();
    await ageAll(30);

    const runs: number[] = [];
    const compaction = startOutboxCompaction({
      db: database.app,
      retentionMs: 7 * DAY,
      intervalMs: 60_000,
      onCompacted: (n) => runs.push(n),
    });
    try {
      await waitFor(() => runs.length === 1, 10_000, 'the first run');
      expect(runs).toEqual([1]);
      expect((await outbox()).map((r) => r.title)).toEqual(['e2', 'e3']);

      await setOffset('laggard', ids[2]!);
      expect(await compaction.runNow()).toBe(2);
      expect(await outbox()).toEqual([]);
    } finally {
      await compaction.close();
    }
  });
});
