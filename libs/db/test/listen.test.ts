import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { createListenBarrier } from '../src/listen.js';
import { freshDatabase, type FreshDatabase } from './support.js';

// The LISTEN barrier that NOTIFY-invalidated caches rely on: once it resolves, every notification
// committed before the call has been delivered; calls of one tick share one round trip.

let database: FreshDatabase;
let listener: pg.Client;
let writer: pg.Client;
const received: string[] = [];
const queries: string[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  listener = new pg.Client({ connectionString: database.url });
  writer = new pg.Client({ connectionString: database.url });
  await listener.connect();
  await writer.connect();
  await listener.query('listen barrier_test');
  listener.on('notification', (message) => received.push(message.payload ?? ''));
});

afterAll(async () => {
  await listener?.end();
  await writer?.end();
  await database?.drop();
});

/** The real client, with its queries recorded. */
const recorded = { query: (text: string) => (queries.push(text), listener.query(text)) };

describe('createListenBarrier', () => {
  it('resolves after every notification committed before the call has been delivered', async () => {
    const barrier = createListenBarrier(() => recorded);
    for (let i = 0; i < 50; i++) {
      await writer.query(`notify barrier_test, 'n${i}'`);
      expect(await barrier()).toBe(true);
      expect(received).toContain(`n${i}`);
    }
  });

  it('shares one round trip among the calls of one tick, and sends a new one for later calls', async () => {
    const barrier = createListenBarrier(() => recorded);
    queries.length = 0;
    const together = await Promise.all([barrier(), barrier(), barrier()]);
    expect(together).toEqual([true, true, true]);
    expect(queries).toEqual(['select 1']);
    await barrier();
    expect(queries).toEqual(['select 1', 'select 1']);
  });

  it('answers false without a listening connection, or when the connection changed meanwhile', async () => {
    expect(await createListenBarrier(() => undefined)()).toBe(false);
    let current: typeof recorded | undefined = recorded;
    const barrier = createListenBarrier(() => current);
    const pending = barrier();
    current = undefined; // the connection was lost while the barrier was in flight
    expect(await pending).toBe(false);
  });
});
