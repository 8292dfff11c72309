import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDb, sql, type AnyDb } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { exportDatabase } from '../src/backup-database.js';

// The database export reads every table from one snapshot: rows committed by another connection
// while it runs — here between two tables, where a writer that stores an item and its outbox
// event together could land — are in none of the files, so a backup never holds half a write.

let database: TestDatabase;
let writer: AnyDb;
const dir = mkdtempSync(join(tmpdir(), 'quarry-backup-snapshot-'));

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [] });
  writer = createDb({ connectionString: database.adminUrl, applicationName: 'snapshot-writer', max: 1 });
  await sql`
    create schema shop;
    create table shop.a_items (id int primary key, label text not null);
    create table shop.b_events (id int generated always as identity primary key, item_id int not null);
    insert into shop.a_items values (1, 'first');
    insert into shop.b_events (item_id) values (1);`.execute(writer);
});

afterAll(async () => {
  await writer?.destroy();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('exportDatabase', () => {
  it('holds no row committed while it runs: each item with its event, or neither', async () => {
    mkdirSync(join(dir, 'database'));
    const exported = await exportDatabase(database.adminUrl, dir, async (table) => {
      if (table.table !== 'a_items') return;
      // After the items were read and before the events are: an item and its event, committed together.
      await writer.transaction().execute(async (trx) => {
        await sql`insert into shop.a_items values (2, 'second')`.execute(trx);
        await sql`insert into shop.b_events (item_id) values (2)`.execute(trx);
      });
    });
    const rowsOf = (name: string) => {
      const t = exported.tables.find((x) => x.table === name)!;
      return { rows: t.rows, text: readFileSync(join(dir, t.file), 'utf8') };
    };
    expect(rowsOf('a_items')).toEqual({ rows: 1, text: '1\tfirst\n' });
    expect(rowsOf('b_events')).toEqual({ rows: 1, text: '1\t1\n' });
    // The identity sequence is read at its value when the export ran.
    expect(exported.sequences).toEqual([
      { schema: 'shop', sequence: 'b_events_id_seq', lastValue: expect.any(String) },
    ]);
    // Both rows are committed: a later export sees them.
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from shop.b_events`.execute(writer);
    expect(rows[0]!.n).toBe(2);
  });
});
