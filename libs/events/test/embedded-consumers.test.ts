import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { sql } from '@quarry/db';
import {
  consumerLag,
  createEmbeddedEventLog,
  isConsumerActive,
  rewindConsumer,
  type DeliveredEvent,
} from '../src/index.js';
import { appendEvents, titleOf, waitFor } from './helpers.js';
import { database, logs, newLog, offsetOf, useEventLogDatabase } from './embedded-support.js';

// The embedded event log's consumers: one active instance each, reconnecting, lag and rewinding.

useEventLogDatabase();

describe('one active instance per consumer, and lag', () => {
  it('keeps a second instance of the same consumer on standby until the first goes away', async () => {
    const org = randomUUID();
    await sql`insert into events.consumer_offsets (consumer, position_tx, position) select 'standby', coalesce(max(tx), '0'), coalesce(max(id), 0) from events.outbox`.execute(
      database.admin,
    );
    const byFirst: string[] = [];
    const bySecond: string[] = [];
    const mine = (batch: readonly DeliveredEvent[]) => batch.filter((e) => e.event.orgId === org).map(titleOf);
    const first = await newLog(200).subscribe({
      consumer: 'standby',
      handler: async (b) => void byFirst.push(...mine(b)),
    });
    await newLog(200).subscribe({ consumer: 'standby', handler: async (b) => void bySecond.push(...mine(b)) });
    await appendEvents(database.app, org, ['s1', 's2']);
    await waitFor(() => byFirst.length >= 2, 10_000, 'the active instance');
    await new Promise((r) => setTimeout(r, 500)); // several standby polls
    expect(bySecond).toEqual([]);

    await first.close();
    await appendEvents(database.app, org, ['s3']);
    await waitFor(() => bySecond.length >= 1, 10_000, 'the standby to take over');
    expect(byFirst).toEqual(['s1', 's2']);
    expect(bySecond).toEqual(['s3']);
  });

  it('reconnects its LISTEN session when the connection is killed, and keeps delivering promptly', async () => {
    const org = randomUUID();
    const errors: unknown[] = [];
    const log = createEmbeddedEventLog({
      db: database.app,
      connectionString: database.appUrl,
      pollIntervalMs: 60_000,
      onError: (e) => errors.push(e),
    });
    logs.push(log);
    const titles: string[] = [];
    let ready = false;
    await log.subscribe({
      consumer: 'reconnect',
      handler: async (b) => {
        ready = true;
        titles.push(...b.filter((e) => e.event.orgId === org).map(titleOf));
      },
    });
    await waitFor(() => ready, 10_000, 'the backlog');
    const killed = await sql<{ ok: boolean }>`
      select pg_terminate_backend(pid) as ok from pg_stat_activity
      where datname = current_database() and application_name = 'quarry-events:reconnect'`.execute(database.admin);
    expect(killed.rows).toEqual([{ ok: true }]);
    await waitFor(() => errors.length > 0, 5_000, 'the session error');
    await new Promise((r) => setTimeout(r, 300)); // reconnected and idle again
    await appendEvents(database.app, org, ['after-kill']);
    await waitFor(() => titles.includes('after-kill'), 2_000, 'delivery after reconnect (fallback poll is 60 s)');
  });

  it('reports how many events a consumer has not finished and how old the oldest is', async () => {
    await sql`insert into events.consumer_offsets (consumer, position_tx, position) select 'lagging', coalesce(max(tx), '0'), coalesce(max(id), 0) from events.outbox`.execute(
      database.admin,
    );
    expect(await consumerLag(database.app, 'lagging')).toEqual({ pending: 0, oldestPendingAgeMs: null });
    await appendEvents(database.app, randomUUID(), ['l1', 'l2']);
    await new Promise((r) => setTimeout(r, 50));
    const lag = await consumerLag(database.app, 'lagging');
    expect(lag.pending).toBe(2);
    expect(lag.oldestPendingAgeMs).toBeGreaterThanOrEqual(40);
  });

  it('knows whether a consumer is running, and rewinds only a stopped one to replay everything', async () => {
    const org = randomUUID();
    await appendEvents(database.app, org, ['r1', 'r2']);
    const seen: string[] = [];
    const log = newLog(200);
    const sub = await log.subscribe({
      consumer: 'rewind',
      handler: async (b) => void seen.push(...b.filter((e) => e.event.orgId === org).map(titleOf)),
    });
    await waitFor(() => seen.length >= 2, 10_000, 'the first pass');
    expect(await isConsumerActive(database.app, 'rewind')).toBe(true);
    await expect(rewindConsumer(database.app, 'rewind')).rejects.toThrow(
      'consumer "rewind" is running; stop it before rewinding',
    );
    expect(await offsetOf('rewind')).toBeDefined();

    await sub.close();
    expect(await isConsumerActive(database.app, 'rewind')).toBe(false);
    await rewindConsumer(database.app, 'rewind');
    expect(await offsetOf('rewind')).toBeUndefined();
    await log.subscribe({
      consumer: 'rewind',
      handler: async (b) => void seen.push(...b.filter((e) => e.event.orgId === org).map(titleOf)),
    });
    await waitFor(() => seen.length >= 4, 10_000, 'the replay');
    expect(seen).toEqual(['r1', 'r2', 'r1', 'r2']);
  });
});
