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

const orgA = randomUUID();
const orgB = randomUUID();
const role = uniqueName('app');
let database: FreshDatabase;
let app: AnyDb; // one pooled connection: every query below reuses the same session

beforeAll(async () => {
  database = await freshDatabase();
  await migrate({
    db: database.admin,
    schema: 'tenancy',
    migrations: {
      '2026_11_21_1200_create_notes': {
        async up(db) {
          await sql`create table notes (id serial primary key, org_id uuid not null, body text not null)`.execute(db);
          await enableTenantRls(db, 'notes');
        },
      },
    },
  });
  await provisionAppRole(database.admin, { role, password: 'pw', schemas: ['tenancy'] });
  app = createDb({ connectionString: appUrlFrom(database.url, role, 'pw'), max: 1 });
  await withTenant(app, { orgId: orgA }, (trx) =>
    trx
      .withSchema('tenancy')
      .insertInto('notes')
      .values([
        { org_id: orgA, body: 'a1' },
        { org_id: orgA, body: 'a2' },
      ])
      .execute(),
  );
});

afterAll(async () => {
  await closeDb(app);
  await database.drop();
  await dropRole(role);
});

const currentOrg = (db: AnyDb) =>
  sql<{ org: string | null }>`select current_setting('app.org_id', true) as org`
    .execute(db)
    .then((r) => r.rows[0]!.org);
const backendPid = (db: AnyDb) =>
  sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db).then((r) => r.rows[0]!.pid);
const bodies = (db: AnyDb) =>
  db
    .withSchema('tenancy')
    .selectFrom('notes')
    .select('body')
    .orderBy('body')
    .execute()
    .then((rows) => rows.map((r) => r.body));

describe('withTenant', () => {
  it('sets app.org_id for the transaction only', async () => {
    const inside = await withTenant(app, { orgId: orgA }, async (trx) => [
      await backendPid(trx),
      await currentOrg(trx),
    ]);
    expect(inside).toEqual([expect.any(Number), orgA]);
    expect(await backendPid(app)).toBe(inside[0]); // the same pooled session...
    expect(await currentOrg(app)).toBeFalsy(); // ...no longer carries the tenant
  });

  it('clears the tenant even when the transaction fails', async () => {
    await expect(withTenant(app, { orgId: orgA }, async () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    expect(await currentOrg(app)).toBeFalsy();
  });

  it('shows a tenant its own rows', async () => {
    expect(await withTenant(app, { orgId: orgA }, bodies)).toEqual(['a1', 'a2']);
  });

  it('shows 0 rows to a query without a tenant on a connection org A just used', async () => {
    await withTenant(app, { orgId: orgA }, bodies);
    expect(await bodies(app)).toEqual([]);
  });

  it('shows org B none of org A’s rows, and lets it change none of them', async () => {
    expect(await withTenant(app, { orgId: orgB }, bodies)).toEqual([]);
    const changed = await withTenant(app, { orgId: orgB }, async (trx) => {
      const updated = await trx.withSchema('tenancy').updateTable('notes').set({ body: 'stolen' }).executeTakeFirst();
      const deleted = await trx.withSchema('tenancy').deleteFrom('notes').executeTakeFirst();
      return [updated.numUpdatedRows, deleted.numDeletedRows];
    });
    expect(changed).toEqual([0n, 0n]);
    expect(await withTenant(app, { orgId: orgA }, bodies)).toEqual(['a1', 'a2']);
  });

  it('refuses to write a row for another org (WITH CHECK)', async () => {
    const insert = withTenant(app, { orgId: orgA }, (trx) =>
      trx.withSchema('tenancy').insertInto('notes').values({ org_id: orgB, body: 'planted' }).execute(),
    );
    expect(await sqlState(insert)).toBe('42501');
    const move = withTenant(app, { orgId: orgA }, (trx) =>
      trx.withSchema('tenancy').updateTable('notes').set({ org_id: orgB }).where('body', '=', 'a1').execute(),
    );
    expect(await sqlState(move)).toBe('42501');
    expect(await withTenant(app, { orgId: orgB }, bodies)).toEqual([]);
  });

  it('rejects an org id that is not a UUID before any SQL runs', async () => {
    // A pool pointing nowhere: touching the database would fail with a connection error instead.
    const unreachable = createDb({ connectionString: 'postgres://nobody:x@127.0.0.1:1/none', max: 1 });
    try {
      for (const orgId of ['', 'not-a-uuid', `${orgA}'; drop table notes; --`, orgA.slice(0, 35)]) {
        await expect(withTenant(unreachable, { orgId }, async () => 'ran')).rejects.toThrow(
          new TypeError(`withTenant: orgId must be a UUID, got ${JSON.stringify(orgId).slice(0, 60)}`),
        );
      }
    } finally {
      await closeDb(unreachable);
    }
  });
});
