import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { assertTenantSafety, enableTenantRls, sql, withTenant, type Migration } from '@quarry/db';
import {
  createTestDatabase,
  refuseConnections,
  TEST_APP_ROLE,
  testPostgresUrl,
  type TestDatabase,
} from '@quarry/testing';

const notes: Record<string, Migration> = {
  '2026_11_21_1200_create_notes': {
    async up(db) {
      await sql`create table notes (id serial primary key, org_id uuid not null, body text not null)`.execute(db);
      await enableTenantRls(db, 'notes');
    },
  },
};

async function databaseExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: testPostgresUrl() });
  await client.connect();
  try {
    return (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

describe('the run’s PostgreSQL', () => {
  it('is announced to test workers in QUARRY_TEST_PG_URL, as a loopback superuser URL', async () => {
    const url = new URL(testPostgresUrl());
    expect(url.hostname).toBe('127.0.0.1');
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      expect((await client.query('select current_setting($1) as su', ['is_superuser'])).rows).toEqual([{ su: 'on' }]);
    } finally {
      await client.end();
    }
  });
});

describe('createTestDatabase', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase({ schemas: [{ schema: 'notes_svc', migrations: notes }] });
  });
  afterAll(() => db.drop());

  it('migrates the schemas as the admin and connects the app as the app role', async () => {
    const who = async (conn: typeof db.admin) =>
      (await sql<{ u: string }>`select current_user as u`.execute(conn)).rows[0]!.u;
    expect(await who(db.admin)).toBe('postgres');
    expect(await who(db.app)).toBe(TEST_APP_ROLE);
    expect(new URL(db.appUrl).pathname).toBe(`/${db.name}`);
    await expect(
      assertTenantSafety(db.admin, { schemas: ['notes_svc'], appRole: db.appRole }),
    ).resolves.toBeUndefined();
  });

  it('gives the app role data access under row level security', async () => {
    const org = randomUUID();
    await withTenant(db.app, { orgId: org }, (trx) =>
      trx.withSchema('notes_svc').insertInto('notes').values({ org_id: org, body: 'hi' }).execute(),
    );
    expect(await db.app.withSchema('notes_svc').selectFrom('notes').selectAll().execute()).toEqual([]);
    const mine = await withTenant(db.app, { orgId: org }, (trx) =>
      trx.withSchema('notes_svc').selectFrom('notes').select('body').execute(),
    );
    expect(mine).toEqual([{ body: 'hi' }]);
  });

  it('gives every call its own database', async () => {
    const other = await createTestDatabase({ schemas: [{ schema: 'notes_svc', migrations: notes }] });
    try {
      expect(other.name).not.toBe(db.name);
      await sql`insert into notes_svc.notes (org_id, body) values (${randomUUID()}, 'only here')`.execute(other.admin);
      const { rows } = await sql<{
        n: number;
      }>`select count(*)::int as n from notes_svc.notes where body = 'only here'`.execute(db.admin);
      expect(rows).toEqual([{ n: 0 }]);
    } finally {
      await other.drop();
    }
  });

  it('creates databases concurrently (the shared app role is provisioned without races)', async () => {
    const many = await Promise.all(
      Array.from({ length: 4 }, () => createTestDatabase({ schemas: [{ schema: 'notes_svc', migrations: notes }] })),
    );
    try {
      for (const each of many)
        expect((await sql<{ one: number }>`select 1 as one`.execute(each.app)).rows).toEqual([{ one: 1 }]);
    } finally {
      await Promise.all(many.map((each) => each.drop()));
    }
  });

  it('drops the database, once, on drop()', async () => {
    const temp = await createTestDatabase();
    expect(await databaseExists(temp.name)).toBe(true);
    await temp.drop();
    await temp.drop();
    expect(await databaseExists(temp.name)).toBe(false);
  });

  it('fails when a migration fails, and leaves no database behind', async () => {
    const broken: Migration = { up: (db) => sql`select from missing_table`.execute(db).then(() => undefined) };
    const before = await sql<{ n: number }>`select count(*)::int as n from pg_database`.execute(db.admin);
    await expect(
      createTestDatabase({ schemas: [{ schema: 'x', migrations: { '2026_11_21_1200_broken': broken } }] }),
    ).rejects.toThrow(/missing_table/);
    const after = await sql<{ n: number }>`select count(*)::int as n from pg_database`.execute(db.admin);
    expect(after.rows).toEqual(before.rows);
  });
});

describe('refuseConnections', () => {
  it('makes the app role’s open and new connections fail as in an outage, then lets them in again', async () => {
    const database = await createTestDatabase({ schemas: [] });
    const app = new pg.Client({ connectionString: database.appUrl });
    app.on('error', () => undefined);
    await app.connect();
    try {
      await refuseConnections(database, true);
      // Whichever the client sees first: the server's FATAL or its closed socket.
      await expect(app.query('select 1')).rejects.toMatchObject({
        message: expect.stringMatching(/terminat|not queryable/i),
      });
      const refused = new pg.Client({ connectionString: database.appUrl });
      await expect(refused.connect()).rejects.toMatchObject({ code: '53300' });
      // The superuser (migrations, fixtures) still gets in.
      expect((await sql<{ one: number }>`select 1 as one`.execute(database.admin)).rows).toEqual([{ one: 1 }]);
      await refuseConnections(database, false);
      expect((await sql<{ one: number }>`select 1 as one`.execute(database.app)).rows).toEqual([{ one: 1 }]);
    } finally {
      await app.end().catch(() => undefined);
      await database.drop();
    }
  });
});
