import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  assertTenantSafety,
  enableTenantRls,
  migrate,
  provisionAppRole,
  rlsReport,
  sql,
  TenantSafetyError,
  type AnyDb,
} from '@quarry/db';
import { dropRole, freshDatabase, uniqueName, type FreshDatabase } from './support.js';

let database: FreshDatabase;
let admin: AnyDb;
const roles = {
  good: uniqueName('app'),
  superuser: uniqueName('app'),
  bypass: uniqueName('app'),
  owner: uniqueName('app'),
};

beforeAll(async () => {
  database = await freshDatabase();
  admin = database.admin;
  await migrate({
    db: admin,
    schema: 'good',
    migrations: {
      '2026_11_21_1200_create': {
        async up(db) {
          await sql`create table projects (id uuid primary key, org_id uuid not null, name text)`.execute(db);
          await enableTenantRls(db, 'projects');
          await sql`create table step_types (name text primary key)`.execute(db); // global: no org_id, no RLS needed
        },
      },
    },
  });
  for (const role of Object.values(roles)) await provisionAppRole(admin, { role, password: 'pw', schemas: ['good'] });
});

afterAll(async () => {
  await database.drop();
  for (const role of Object.values(roles)) await dropRole(role);
});

/** The violations assertTenantSafety reports, or [] when it passes. */
async function violations(schemas: string[], appRole = roles.good): Promise<readonly string[]> {
  try {
    await assertTenantSafety(admin, { schemas, appRole });
    return [];
  } catch (error) {
    if (!(error instanceof TenantSafetyError)) throw error;
    return error.violations;
  }
}

async function schemaWith(ddl: string): Promise<string> {
  const schema = uniqueName('s');
  await sql.raw(`create schema ${schema}; set search_path to ${schema}; ${ddl}; reset search_path`).execute(admin);
  return schema;
}

describe('rlsReport', () => {
  it('lists every table of the schemas with its RLS state, policies and owner', async () => {
    expect(await rlsReport(admin, ['good'])).toEqual([
      {
        schema: 'good',
        table: 'kysely_migration',
        hasOrgId: false,
        rlsEnabled: false,
        rlsForced: false,
        policies: [],
        owner: 'postgres',
      },
      {
        schema: 'good',
        table: 'kysely_migration_lock',
        hasOrgId: false,
        rlsEnabled: false,
        rlsForced: false,
        policies: [],
        owner: 'postgres',
      },
      {
        schema: 'good',
        table: 'projects',
        hasOrgId: true,
        rlsEnabled: true,
        rlsForced: true,
        policies: ['tenant_isolation'],
        owner: 'postgres',
      },
      {
        schema: 'good',
        table: 'step_types',
        hasOrgId: false,
        rlsEnabled: false,
        rlsForced: false,
        policies: [],
        owner: 'postgres',
      },
    ]);
  });
});

describe('assertTenantSafety', () => {
  it('passes for tables made with enableTenantRls and a provisioned app role', async () => {
    expect(await violations(['good'])).toEqual([]);
  });

  it('catches a table with org_id whose RLS is enabled but not FORCED', async () => {
    const s = await schemaWith(`create table t (org_id uuid);
      alter table t enable row level security;
      create policy p on t using (org_id = current_setting('app.org_id', true)::uuid)`);
    expect(await violations([s])).toEqual([`${s}.t has org_id but row level security is not FORCED`]);
  });

  it('catches a table with org_id and no RLS at all', async () => {
    const s = await schemaWith('create table t (id int, org_id uuid)');
    expect(await violations([s])).toEqual([
      `${s}.t has org_id but row level security is not ENABLED`,
      `${s}.t has org_id but row level security is not FORCED`,
      `${s}.t has org_id but no policy reading current_setting('app.org_id')`,
    ]);
  });

  it('catches a table with org_id and RLS but no tenant policy', async () => {
    const s = await schemaWith(`create table t (org_id uuid);
      alter table t enable row level security; alter table t force row level security`);
    expect(await violations([s])).toEqual([`${s}.t has org_id but no policy reading current_setting('app.org_id')`]);
  });

  it('catches a permissive policy that lets every tenant through', async () => {
    const s = await schemaWith(`create table t (org_id uuid)`);
    await enableTenantRls(admin, `${s}.t`);
    await sql.raw(`create policy everyone on ${s}.t for select using (true)`).execute(admin);
    expect(await violations([s])).toEqual([`${s}.t: permissive policy everyone does not restrict rows to app.org_id`]);
  });

  it('accepts a documented, read-only tenant exemption and nothing weaker', async () => {
    const s = await schemaWith(`create table t (org_id uuid, secret_hash text)`);
    await enableTenantRls(admin, `${s}.t`);
    await sql
      .raw(`create policy lookup on ${s}.t for select using (secret_hash = current_setting('app.secret', true))`)
      .execute(admin);
    await sql
      .raw(`comment on policy lookup on ${s}.t is 'quarry:tenant-exempt: read the row whose secret the caller holds'`)
      .execute(admin);
    expect(await violations([s])).toEqual([]);

    await sql.raw(`comment on policy lookup on ${s}.t is 'quarry:tenant-exempt:'`).execute(admin);
    expect(await violations([s])).toEqual([`${s}.t: permissive policy lookup does not restrict rows to app.org_id`]);

    await sql.raw(`create policy writer on ${s}.t for update using (true)`).execute(admin);
    await sql
      .raw(`comment on policy writer on ${s}.t is 'quarry:tenant-exempt: this must not be allowed'`)
      .execute(admin);
    expect(await violations([s])).toContain(`${s}.t: tenant-exempt policy writer must be FOR SELECT only`);
  });

  it('catches an app role that owns a table', async () => {
    const s = await schemaWith('create table owned_by_app (id int)');
    await sql.raw(`alter table ${s}.owned_by_app owner to ${roles.owner}`).execute(admin);
    expect(await violations([s], roles.owner)).toEqual([`app role ${roles.owner} owns table ${s}.owned_by_app`]);
  });

  it('catches a superuser or BYPASSRLS app role', async () => {
    await sql.raw(`alter role ${roles.superuser} superuser`).execute(admin);
    await sql.raw(`alter role ${roles.bypass} bypassrls`).execute(admin);
    expect(await violations(['good'], roles.superuser)).toContain(`app role ${roles.superuser} has SUPERUSER`);
    expect(await violations(['good'], roles.bypass)).toEqual([`app role ${roles.bypass} has BYPASSRLS`]);
  });

  it('catches an app role that could SET ROLE to the admin', async () => {
    const member = uniqueName('app');
    await provisionAppRole(admin, { role: member, password: 'pw', schemas: ['good'] });
    try {
      await sql.raw(`grant postgres to ${member}`).execute(admin);
      const found = await violations(['good'], member);
      expect(found).toContain(`app role ${member} is a member of postgres, which has SUPERUSER and BYPASSRLS`);
      expect(found).toContain(`app role ${member} is a member of postgres, which owns table good.projects`);
    } finally {
      await sql.raw(`revoke postgres from ${member}; drop owned by ${member}`).execute(admin);
      await dropRole(member);
    }
  });

  it('catches an app role that may create tables in a service schema', async () => {
    await sql.raw(`grant create on schema good to ${roles.owner}`).execute(admin);
    try {
      expect(await violations(['good'], roles.owner)).toContain(`app role ${roles.owner} can CREATE in schema good`);
    } finally {
      await sql.raw(`revoke create on schema good from ${roles.owner}`).execute(admin);
    }
  });

  it('reports a missing app role', async () => {
    expect(await violations(['good'], 'no_such_role')).toEqual(['app role no_such_role does not exist']);
  });

  it('lists every violation in its error message', async () => {
    const s = await schemaWith('create table t (org_id uuid)');
    await expect(assertTenantSafety(admin, { schemas: [s], appRole: roles.good })).rejects.toThrow(
      /Tenant isolation is not guaranteed:\n {2}- .*not ENABLED\n {2}- .*not FORCED\n {2}- .*no policy/,
    );
  });
});
