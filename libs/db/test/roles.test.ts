import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  appUrlFrom,
  closeDb,
  createDb,
  enableTenantRls,
  migrate,
  provisionAppRole,
  sql,
  withTenant,
  type AnyDb,
} from '@quarry/db';
import { dropRole, freshDatabase, sqlState, uniqueName, type FreshDatabase } from './support.js';

const role = uniqueName('app');
const orgA = randomUUID();
let database: FreshDatabase;
let app: AnyDb;

beforeAll(async () => {
  database = await freshDatabase();
  await migrate({
    db: database.admin,
    schema: 'svc',
    migrations: {
      '2026_11_21_1200_create_items': {
        async up(db) {
          await sql`create table items (id bigserial primary key, org_id uuid not null, name text not null)`.execute(
            db,
          );
          await enableTenantRls(db, 'items');
        },
      },
    },
  });
  await sql`insert into svc.items (org_id, name) values (${orgA}, 'secret')`.execute(database.admin);
  await provisionAppRole(database.admin, { role, password: 'first-password', schemas: ['svc'] });
  // Provisioning again (every deploy does) updates the password and changes nothing else.
  await provisionAppRole(database.admin, { role, password: 'second-password', schemas: ['svc'] });
  app = createDb({ connectionString: appUrlFrom(database.url, role, 'second-password'), max: 1 });
});

afterAll(async () => {
  await closeDb(app);
  await database.drop();
  await dropRole(role);
});

describe('provisionAppRole', () => {
  it('creates a login role with no superuser, BYPASSRLS, CREATEDB or CREATEROLE', async () => {
    const { rows } = await sql`
      select rolcanlogin, rolsuper, rolbypassrls, rolcreatedb, rolcreaterole, rolreplication
      from pg_roles where rolname = ${role}`.execute(database.admin);
    expect(rows).toEqual([
      {
        rolcanlogin: true,
        rolsuper: false,
        rolbypassrls: false,
        rolcreatedb: false,
        rolcreaterole: false,
        rolreplication: false,
      },
    ]);
  });

  it('lets the app role read and write through RLS with its latest password', async () => {
    const rows = await withTenant(app, { orgId: orgA }, async (trx) => {
      await trx.withSchema('svc').insertInto('items').values({ org_id: orgA, name: 'mine' }).execute();
      return trx.withSchema('svc').selectFrom('items').select('name').orderBy('name').execute();
    });
    expect(rows).toEqual([{ name: 'mine' }, { name: 'secret' }]);
    const old = createDb({ connectionString: appUrlFrom(database.url, role, 'first-password'), max: 1 });
    try {
      expect(await sqlState(sql`select 1`.execute(old))).toBe('28P01'); // invalid_password
    } finally {
      await closeDb(old);
    }
  });

  it('cannot switch row level security off for itself', async () => {
    expect(await sqlState(sql`set row_security = off; select * from svc.items`.execute(app))).toBe('42501');
    await sql`reset row_security`.execute(app);
    expect(await sqlState(sql`alter table svc.items no force row level security`.execute(app))).toBe('42501');
    expect(await sqlState(sql`alter table svc.items disable row level security`.execute(app))).toBe('42501');
    expect(await sqlState(sql`drop policy tenant_isolation on svc.items`.execute(app))).toBe('42501');
  });

  it('cannot create tables in the schema, alter or drop a table, or read migration bookkeeping', async () => {
    expect(await sqlState(sql`create table svc.mine (id int)`.execute(app))).toBe('42501');
    expect(await sqlState(sql`create schema mine`.execute(app))).toBe('42501');
    expect(await sqlState(sql`alter table svc.items add column x int`.execute(app))).toBe('42501');
    expect(await sqlState(sql`drop table svc.items`.execute(app))).toBe('42501');
    expect(await sqlState(sql`select * from svc.kysely_migration`.execute(app))).toBe('42501');
    expect(await sqlState(sql`delete from svc.kysely_migration`.execute(app))).toBe('42501');
  });

  it('cannot become the admin', async () => {
    expect(await sqlState(sql`set role postgres`.execute(app))).toBe('42501');
  });

  it('reaches tables the migrating role creates later (default privileges)', async () => {
    await migrate({
      db: database.admin,
      schema: 'svc',
      migrations: {
        '2026_11_21_1200_create_items': { up: async () => undefined },
        '2026_11_22_1200_create_tags': {
          async up(db) {
            await sql`create table tags (id serial primary key, org_id uuid not null, tag text)`.execute(db);
            await enableTenantRls(db, 'tags');
          },
        },
      },
    });
    const tags = await withTenant(app, { orgId: orgA }, async (trx) => {
      await trx.withSchema('svc').insertInto('tags').values({ org_id: orgA, tag: 't' }).execute(); // uses the sequence too
      return trx.withSchema('svc').selectFrom('tags').select('tag').execute();
    });
    expect(tags).toEqual([{ tag: 't' }]);
  });

  it('needs no password to keep an existing role as it is, and refuses to create or change one without it', async () => {
    await provisionAppRole(database.admin, { role, keepPassword: true, schemas: ['svc'] });
    expect(await withTenant(app, { orgId: orgA }, async () => 'still connects')).toBe('still connects');
    await expect(provisionAppRole(database.admin, { role, schemas: ['svc'] })).rejects.toThrow(
      `a password is required to create or change the password of ${role}`,
    );
    const missing = uniqueName('never');
    await expect(provisionAppRole(database.admin, { role: missing, keepPassword: true, schemas: [] })).rejects.toThrow(
      `a password is required to create or change the password of ${missing}`,
    );
    expect((await sql`select 1 from pg_roles where rolname = ${missing}`.execute(database.admin)).rows).toEqual([]);
  });

  it('rejects role and schema names that are not plain identifiers', async () => {
    await expect(provisionAppRole(database.admin, { role: 'x"; drop', password: 'p', schemas: [] })).rejects.toThrow(
      TypeError,
    );
    await expect(provisionAppRole(database.admin, { role, password: 'p', schemas: ['Svc'] })).rejects.toThrow(
      TypeError,
    );
  });
});

describe('appUrlFrom', () => {
  it('swaps in the app credentials and keeps host, port, database and options', () => {
    expect(
      appUrlFrom('postgres://postgres:s3cret@127.0.0.1:5433/quarry?sslmode=disable', 'quarry_app', 'p@ss/word'),
    ).toBe('postgres://quarry_app:p%40ss%2Fword@127.0.0.1:5433/quarry?sslmode=disable');
  });
});
