import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { sql, withTenant } from '@quarry/db';
import { appendContentEvent, type DeadLetter, type DeliveredEvent, type Subscription } from '../src/index.js';
import { appendEvents, titleOf, waitFor } from './helpers.js';
import { database, newLog, offsetOf, useEventLogDatabase } from './embedded-support.js';

// The embedded event log (a transactional outbox in PostgreSQL) delivering to consumers; one
// active instance per consumer and lag are in embedded-consumers.test.ts.

useEventLogDatabase();

describe('embedded event log (the outbox)', () => {
  it('delivers committed events in outbox order, per org in append order', async () => {
    const [orgA, orgB] = [randomUUID(), randomUUID()];
    const a = await appendEvents(database.app, orgA, ['a1', 'a2']);
    const b = await appendEvents(database.app, orgB, ['b1']);
    const a3 = await appendEvents(database.app, orgA, ['a3']);
    const seen: DeliveredEvent[] = [];
    await newLog().subscribe({
      consumer: 'order',
      batchSize: 2,
      handler: async (batch) => {
        seen.push(...batch.filter((e) => e.event.orgId === orgA || e.event.orgId === orgB));
      },
    });
    await waitFor(() => seen.length >= 4, 10_000, '4 events');
    expect(seen.map((e) => e.event.eventId)).toEqual([...a, ...b, ...a3]);
    expect(seen.map((e) => e.key)).toEqual([orgA, orgA, orgB, orgA]);
    expect(seen[0]?.headers).toMatchObject({ 'event-type': 'content.created', 'schema-version': '1' });
    const offsets = seen.map((e) => BigInt(e.offset));
    expect([...offsets].sort((x, y) => (x < y ? -1 : 1))).toEqual(offsets);
  });

  it('redelivers an unfinished batch after a crash and resumes from the stored offset', async () => {
    const org = randomUUID();
    // Start this consumer at the current end of the log, so its batches are exactly r1-r3, r4-r6, r7.
    await sql`insert into events.consumer_offsets (consumer, position_tx, position) select 'restart', coalesce(max(tx), '0'), coalesce(max(id), 0) from events.outbox`.execute(
      database.admin,
    );
    const ids = await appendEvents(database.app, org, ['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7']);
    const mine = (batch: readonly DeliveredEvent[]) => batch.filter((e) => e.event.orgId === org);

    // First run: the first batch of 3 succeeds, the process "dies" in the middle of the second.
    const firstRun: string[] = [];
    let calls = 0;
    let closing: Promise<void> | undefined;
    const sub: Subscription = await newLog().subscribe({
      consumer: 'restart',
      batchSize: 3,
      retryDelayMs: 1,
      handler: async (batch) => {
        const events = mine(batch);
        if (events.length === 0) return;
        calls++;
        firstRun.push(...events.map((e) => e.event.eventId));
        if (calls === 2) {
          closing = sub.close();
          throw new Error('killed mid-batch');
        }
      },
    });
    await waitFor(() => closing !== undefined, 10_000, 'the crash');
    await closing;
    expect(firstRun).toEqual(ids.slice(0, 6));

    // The stored offset covers exactly the first batch.
    const { rows } = await sql<{ id: string }>`select id from events.outbox where event_id = ${ids[2]}`.execute(
      database.admin,
    );
    expect(await offsetOf('restart')).toBe(rows[0]?.id);

    // Second run (a new process): starts after the offset, so r4.. are delivered again and in order.
    const secondRun: string[] = [];
    await newLog().subscribe({
      consumer: 'restart',
      batchSize: 3,
      handler: async (batch) => {
        secondRun.push(...mine(batch).map((e) => e.event.eventId));
      },
    });
    await waitFor(() => secondRun.length >= 4, 10_000, 'the remaining 4 events');
    expect(secondRun).toEqual(ids.slice(3)); // r4-r6 delivered twice in all: at least once, never lost
  });

  it('dead-letters a poison event after maxAttempts and keeps the stream moving', async () => {
    const org = randomUUID();
    const [ok1, poison, ok2] = await appendEvents(database.app, org, ['ok1', 'poison', 'ok2']);
    const handled: string[] = [];
    const reported: DeadLetter[] = [];
    let poisonAttemptsAlone = 0;
    await newLog().subscribe({
      consumer: 'poison',
      batchSize: 10,
      maxAttempts: 3,
      retryDelayMs: 1,
      onDeadLetter: (letter) => reported.push(letter),
      handler: async (batch) => {
        const events = batch.filter((e) => e.event.orgId === org);
        if (events.some((e) => titleOf(e) === 'poison')) {
          if (batch.length === 1) poisonAttemptsAlone++;
          throw new Error('cannot index this');
        }
        handled.push(...events.map((e) => e.event.eventId));
      },
    });
    await waitFor(() => handled.includes(ok2!), 10_000, 'the event after the poison one');
    expect(handled).toEqual([ok1, ok2]);
    expect(poisonAttemptsAlone).toBe(3);

    const letters = await withTenant(database.app, { orgId: org }, (trx) =>
      sql<{ event_id: string; attempts: number; error: string; consumer: string }>`
        select event_id, attempts, error, consumer from events.dead_letters`.execute(trx),
    );
    expect(letters.rows).toEqual([
      { event_id: poison, attempts: 3, error: 'Error: cannot index this', consumer: 'poison' },
    ]);
    // The hook heard of it once, after the row was stored, with the event and the stored failure.
    expect(reported).toEqual([
      {
        consumer: 'poison',
        offset: expect.stringMatching(/^\d+$/),
        topic: 'content.created',
        key: org,
        event: expect.objectContaining({ eventId: poison, title: 'poison' }),
        attempts: 3,
        error: 'Error: cannot index this',
      },
    ]);
    const otherTenant = await withTenant(database.app, { orgId: randomUUID() }, (trx) =>
      sql`select 1 from events.dead_letters`.execute(trx),
    );
    expect(otherTenant.rows).toEqual([]);
  });

  it('retries a transient failure (an engine down) past maxAttempts and never dead-letters it', async () => {
    const org = randomUUID();
    const [first, second] = await appendEvents(database.app, org, ['during-outage', 'after']);
    const handled: string[] = [];
    let outageCalls = 0;
    class EngineDown extends Error {}
    await newLog().subscribe({
      consumer: 'outage',
      batchSize: 10,
      maxAttempts: 2,
      retryDelayMs: 1,
      isTransient: (error) => error instanceof EngineDown,
      handler: async (batch) => {
        const events = batch.filter((e) => e.event.orgId === org);
        if (events.length && outageCalls < 8) {
          outageCalls++;
          throw new EngineDown('index unreachable');
        }
        handled.push(...events.map((e) => e.event.eventId));
      },
    });
    await waitFor(() => handled.includes(second!), 10_000, 'delivery once the engine is back');
    expect(outageCalls).toBe(8); // far more than maxAttempts, none counted
    expect(handled).toEqual([first, second]);
    const letters = await sql`select 1 from events.dead_letters where consumer = 'outage'`.execute(database.admin);
    expect(letters.rows).toEqual([]);
  });

  it('dead-letters an undecodable outbox row at once and delivers the next', async () => {
    const org = randomUUID();
    await sql`insert into events.outbox (event_id, org_id, topic, key, payload)
              values (${randomUUID()}, ${org}, 'content.created', ${org}, '{"schemaVersion": 99}')`.execute(
      database.admin,
    );
    const [after] = await appendEvents(database.app, org, ['after']);
    const handled: string[] = [];
    const reported: DeadLetter[] = [];
    await newLog().subscribe({
      consumer: 'undecodable',
      onDeadLetter: (letter) => reported.push(letter),
      handler: async (batch) => {
        handled.push(...batch.filter((e) => e.event.orgId === org).map((e) => e.event.eventId));
      },
    });
    await waitFor(() => handled.includes(after!), 10_000, 'the event after the undecodable one');
    const letters = await sql<{
      attempts: number;
    }>`select attempts from events.dead_letters where org_id = ${org} and consumer = 'undecodable'`.execute(
      database.admin,
    );
    expect(letters.rows).toEqual([{ attempts: 1 }]);
    expect(reported.filter((l) => l.key === org)).toEqual([
      {
        consumer: 'undecodable',
        offset: expect.any(String),
        topic: 'content.created',
        key: org,
        event: null,
        attempts: 1,
        error: 'invalid payload: not a content.created v1 event for its org',
      },
    ]);
  });

  it('survives an onDeadLetter hook that throws: the error goes to onError and the stream moves on', async () => {
    const org = randomUUID();
    const [, after] = await appendEvents(database.app, org, ['poison', 'after']);
    const handled: string[] = [];
    const errors: unknown[] = [];
    await newLog(60_000, (error) => errors.push(error)).subscribe({
      consumer: 'throwing-hook',
      maxAttempts: 1,
      retryDelayMs: 1,
      onDeadLetter: (letter) => {
        if (letter.key === org) throw new Error('metrics are broken');
      },
      handler: async (batch) => {
        const events = batch.filter((e) => e.event.orgId === org);
        if (events.some((e) => titleOf(e) === 'poison')) throw new Error('cannot index this');
        handled.push(...events.map((e) => e.event.eventId));
      },
    });
    await waitFor(() => handled.includes(after!), 10_000, 'the event after the dead-lettered one');
    expect(errors).toEqual([new Error('metrics are broken')]);
    const letters =
      await sql`select 1 from events.dead_letters where consumer = 'throwing-hook' and org_id = ${org}`.execute(
        database.admin,
      );
    expect(letters.rows).toHaveLength(1);
  });

  it('wakes an idle consumer by NOTIFY within a second (fallback poll set to a minute)', async () => {
    const org = randomUUID();
    let receivedAt = 0;
    const log = newLog(60_000);
    let caughtUp = false;
    await log.subscribe({
      consumer: 'notify',
      handler: async (batch) => {
        if (batch.some((e) => e.event.orgId === org)) receivedAt = performance.now();
        caughtUp = true;
      },
    });
    // Let it read the backlog of earlier tests and go idle.
    await waitFor(() => caughtUp, 10_000, 'the backlog');
    await new Promise((r) => setTimeout(r, 300));
    const sentAt = performance.now();
    await appendEvents(database.app, org, ['wake']);
    await waitFor(() => receivedAt > 0, 5_000, 'the notified event');
    const latencyMs = receivedAt - sentAt;
    expect(latencyMs).toBeLessThan(1_000);
  });

  it('never delivers an event whose transaction rolled back', async () => {
    const org = randomUUID();
    await expect(
      withTenant(database.app, { orgId: org }, async (trx) => {
        await appendContentEvent(trx, {
          orgId: org,
          sourceTable: 'research_output',
          sourceId: 'x',
          title: 'rolled back',
          text: 't',
        });
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    const [kept] = await appendEvents(database.app, org, ['kept']);
    const titles: string[] = [];
    await newLog().subscribe({
      consumer: 'rollback',
      handler: async (batch) => {
        titles.push(...batch.filter((e) => e.event.orgId === org).map(titleOf));
      },
    });
    await waitFor(() => titles.includes('kept'), 10_000, 'the committed event');
    expect(kept).toBeDefined();
    expect(titles).toEqual(['kept']);
  });
});
