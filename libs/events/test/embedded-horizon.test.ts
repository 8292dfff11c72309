import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { sql } from '@quarry/db';
import { createTestDatabase } from '@quarry/testing';
import { outboxHead } from '../src/index.js';
import { appendEvents, titleOf, waitFor } from './helpers.js';
import { database, newLog, useEventLogDatabase } from './embedded-support.js';

// Transaction ids are shared by every database of a PostgreSQL server; a transaction left open in
// another database must not hold this outbox's consumers, while one in this database still must.

useEventLogDatabase();

/** A session of `url` inside a transaction that holds a transaction id until it is closed. */
async function openWritingTransaction(url: string): Promise<{ xid: string; close(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('begin');
  const { rows } = await client.query<{ xid: string }>('select pg_current_xact_id()::text as xid');
  return {
    xid: rows[0]!.xid,
    close: async () => {
      await client.query('rollback');
      await client.end();
    },
  };
}

describe('the outbox horizon', () => {
  it('is not held by a transaction left open in another database of the same server', async () => {
    const other = await createTestDatabase();
    const open = await openWritingTransaction(other.adminUrl);
    try {
      const org = randomUUID();
      const titles: string[] = [];
      await newLog().subscribe({
        consumer: 'other-database',
        handler: async (batch) => void titles.push(...batch.filter((e) => e.event.orgId === org).map(titleOf)),
      });
      await appendEvents(database.app, org, ['past-the-other-database']);
      await waitFor(() => titles.length === 1, 5_000, 'delivery while the other database holds a transaction');
      expect(titles).toEqual(['past-the-other-database']);

      // The same server's snapshot does count it: the horizon is what ignores it.
      const { rows } = await sql<{ xmin: string; horizon: string }>`
        select pg_snapshot_xmin(pg_current_snapshot())::text as xmin, events.outbox_horizon()::text as horizon`.execute(
        database.admin,
      );
      expect(BigInt(rows[0]!.xmin)).toBeLessThanOrEqual(BigInt(open.xid));
      expect(BigInt(rows[0]!.horizon)).toBeGreaterThan(BigInt(open.xid));
      expect(BigInt((await outboxHead(database.admin)).tx)).toBeGreaterThan(BigInt(open.xid));
    } finally {
      await open.close();
      await other.drop();
    }
  });

  it('is still held by a transaction open in this database, and moves on when it ends', async () => {
    const open = await openWritingTransaction(database.adminUrl);
    const org = randomUUID();
    const titles: string[] = [];
    await newLog(60_000).subscribe({
      consumer: 'same-database',
      handler: async (batch) => void titles.push(...batch.filter((e) => e.event.orgId === org).map(titleOf)),
    });
    await appendEvents(database.app, org, ['behind-this-database']);
    await new Promise((r) => setTimeout(r, 300));
    expect(titles).toEqual([]);
    const { rows } = await sql<{ horizon: string }>`select events.outbox_horizon()::text as horizon`.execute(
      database.admin,
    );
    expect(BigInt(rows[0]!.horizon)).toBeLessThanOrEqual(BigInt(open.xid));

    await open.close();
    await waitFor(() => titles.includes('behind-this-database'), 5_000, 'delivery once the transaction ended');
  });
});
