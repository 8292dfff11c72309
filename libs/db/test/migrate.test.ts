import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { migrate, MigrationError, sql, type AnyDb, type Migration } from '@quarry/db';
import { freshDatabase, type FreshDatabase } from './support.js';

let database: FreshDatabase;
let db: AnyDb;
beforeAll(async () => {
  database = await freshDatabase();
  db = database.admin;
});
afterAll(() => database.drop());

const createNotes: Migration = {
  async up(db) {
    await db.schema
      .createTable('notes')
      .addColumn('id', 'serial', (c) => c.primaryKey())
      .addColumn('body', 'text')
      .execute();
  },
  async down(db) {
    await db.schema.dropTable('notes').execute();
  },
};
const addTitle: Migration = {
  async up(db) {
    await sql`alter table notes add column title text`.execute(db);
  },
};

async function tablesIn(schema: string): Promise<string[]> {
  const { rows } = await sql<{
    t: string;
  }>`select tablename::text as t from pg_tables where schemaname = ${schema} order by 1`.execute(db);
  return rows.map((r) => r.t);
}

describe('migrate', () => {
  it('creates the schema, applies pending migrations in name order into it, and returns their names', async () => {
    const applied = await migrate({
      db,
      schema: 'notes_svc',
      migrations: { '2026_11_21_1300_add_title': addTitle, '2026_11_21_1200_create_notes': createNotes },
    });
    expect(applied).toEqual(['2026_11_21_1200_create_notes', '2026_11_21_1300_add_title']);
    expect(await tablesIn('notes_svc')).toEqual(['kysely_migration', 'kysely_migration_lock', 'notes']);
    expect(await tablesIn('public')).toEqual([]);
  });

  it('is idempotent: a second run applies nothing', async () => {
    const migrations = { '2026_11_21_1200_create_notes': createNotes, '2026_11_21_1300_add_title': addTitle };
    expect(await migrate({ db, schema: 'notes_svc', migrations })).toEqual([]);
  });

  it('applies only what is new', async () => {
    const addIndex: Migration = {
      up: (db) => sql`create index notes_title on notes (title)`.execute(db).then(() => undefined),
    };
    const migrations = {
      '2026_11_21_1200_create_notes': createNotes,
      '2026_11_21_1300_add_title': addTitle,
      '2026_11_22_0900_index_title': addIndex,
    };
    expect(await migrate({ db, schema: 'notes_svc', migrations })).toEqual(['2026_11_22_0900_index_title']);
  });

  it('keeps each service schema’s history apart', async () => {
    expect(
      await migrate({ db, schema: 'other_svc', migrations: { '2026_11_21_1200_create_notes': createNotes } }),
    ).toEqual(['2026_11_21_1200_create_notes']);
    const { rows } = await sql<{ name: string }>`select name from other_svc.kysely_migration`.execute(db);
    expect(rows).toEqual([{ name: '2026_11_21_1200_create_notes' }]);
  });

  describe('applied migrations are frozen', () => {
    const applied = { '2026_11_21_1200_create_notes': createNotes, '2026_11_21_1300_add_title': addTitle };
    beforeAll(() => migrate({ db, schema: 'frozen_svc', migrations: applied }));

    it('fails loudly when an applied migration was removed', async () => {
      const error = await migrate({
        db,
        schema: 'frozen_svc',
        migrations: { '2026_11_21_1200_create_notes': createNotes },
      }).catch((e) => e);
      expect(error).toBeInstanceOf(MigrationError);
      expect(error.message).toMatch(/frozen_svc.*previously executed migration 2026_11_21_1300_add_title is missing/);
    });

    it('fails loudly when an applied migration was renamed', async () => {
      const renamed = { '2026_11_21_1200_create_notes': createNotes, '2026_11_21_1300_add_note_title': addTitle };
      await expect(migrate({ db, schema: 'frozen_svc', migrations: renamed })).rejects.toThrow(
        /2026_11_21_1300_add_title is missing/,
      );
    });

    it('fails loudly when a new migration sorts before an applied one', async () => {
      const backdated = { ...applied, '2026_11_21_1230_backdated': addTitle };
      await expect(migrate({ db, schema: 'frozen_svc', migrations: backdated })).rejects.toThrow(MigrationError);
    });
  });

  it('rolls back the whole run when a migration fails, naming it', async () => {
    const broken: Migration = { up: (db) => sql`select * from no_such_table`.execute(db).then(() => undefined) };
    const error = await migrate({
      db,
      schema: 'broken_svc',
      migrations: { '2026_11_21_1200_create_notes': createNotes, '2026_11_21_1300_broken': broken },
    }).catch((e) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect(error.message).toMatch(/broken_svc.*2026_11_21_1300_broken.*no_such_table/);
    expect(await tablesIn('broken_svc')).not.toContain('notes');
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from broken_svc.kysely_migration`.execute(db);
    expect(rows).toEqual([{ n: 0 }]);
  });

  it('rejects names that are not timestamped and schema names that are not plain identifiers', async () => {
    await expect(migrate({ db, schema: 'x_svc', migrations: { create_notes: createNotes } })).rejects.toThrow(
      /2026_11_21_1200_create_x/,
    );
    await expect(migrate({ db, schema: 'Bad-Schema', migrations: {} })).rejects.toThrow(/not a valid schema name/);
  });
});
