import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { assertTenantSafety, createDb, migrate, rlsReport, sql } from '@quarry/db';
import { createTestDatabase, TEST_APP_ROLE, type TestDatabase } from '@quarry/testing';
import { randomUUID } from 'node:crypto';
import { countStalledPlans, grantPlanMaintenance, grantPlanMetrics, planSchemas } from '../../src/index.js';
import { markStalledPlans } from '../../src/stall-sweep.js';
import { APPEND_ONLY, asTenant, newRow, PLAN_TABLES, seedOrg, visibleOrgs, type SeededOrg } from './fixtures.js';

// Row-level security of the `plan` schema, seen through the app role services connect as.

let database: TestDatabase;
let a: SeededOrg;
let b: SeededOrg;

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...planSchemas] });
  a = await seedOrg(database.admin);
  b = await seedOrg(database.admin);
});
afterAll(async () => {
  await database?.drop();
});

describe('the plan schema is tenant-safe', () => {
  it('has RLS enabled and forced with a tenant policy on every table, and the app role owns nothing and bypasses nothing', async () => {
    await expect(
      assertTenantSafety(database.admin, { schemas: ['plan'], appRole: TEST_APP_ROLE }),
    ).resolves.toBeUndefined();
    const report = await rlsReport(database.admin, ['plan']);
    const tables = report.filter((t) => t.table !== 'kysely_migration' && t.table !== 'kysely_migration_lock');
    expect(tables.map((t) => t.table).sort()).toEqual([...PLAN_TABLES].sort());
    for (const t of tables) {
      expect({
        table: t.table,
        hasOrgId: t.hasOrgId,
        enabled: t.rlsEnabled,
        forced: t.rlsForced,
        policies: t.policies,
      }).toEqual({
        table: t.table,
        hasOrgId: true,
        enabled: true,
        forced: true,
        // The owner reads plans and steps of all orgs, only inside plan.count_stalled_plans (below).
        policies:
          t.table === 'research_plans' || t.table === 'plan_steps'
            ? ['stall_count_owner_read', 'tenant_isolation']
            : ['tenant_isolation'],
      });
    }
  });

  it.each(PLAN_TABLES)('%s: each org sees only its own rows, and nobody sees any without a tenant', async (table) => {
    const seenBy = (org: string | undefined) => asTenant(database.app, org, (trx) => visibleOrgs(trx, table));
    const seenByA = await seenBy(a.orgId);
    const seenByB = await seenBy(b.orgId);
    expect(seenByA.length).toBeGreaterThan(0);
    expect(new Set(seenByA)).toEqual(new Set([a.orgId]));
    expect(new Set(seenByB)).toEqual(new Set([b.orgId]));
    expect(await seenBy(undefined)).toEqual([]);
    // Same pool afterwards, no tenant: nothing leaks from an earlier transaction.
    expect(await visibleOrgs(database.app, table)).toEqual([]);
  });

  it.each(PLAN_TABLES)('%s: a row for another org is refused, on insert and on update (WITH CHECK)', async (table) => {
    await expect(
      asTenant(database.app, b.orgId, (trx) => trx.insertInto(`plan.${table}`).values(newRow(table, a)).execute()),
    ).rejects.toThrow(/violates row-level security policy/);
    // No tenant at all: nothing may be written either.
    await expect(
      asTenant(database.app, undefined, (trx) => trx.insertInto(`plan.${table}`).values(newRow(table, a)).execute()),
    ).rejects.toThrow(/violates row-level security policy/);
    const moveToB = asTenant(database.app, a.orgId, (trx) =>
      trx.updateTable(`plan.${table}`).set({ org_id: b.orgId }).execute(),
    );
    // The audit log and the deletion tombstones refuse every UPDATE before row-level security gets to look.
    await expect(moveToB).rejects.toThrow(
      APPEND_ONLY.includes(table) ? /append-only/ : /violates row-level security policy/,
    );
  });

  it.each(PLAN_TABLES.filter((t) => !APPEND_ONLY.includes(t)))(
    "%s: org B can neither change nor delete org A's rows",
    async (table) => {
      const before = await visibleOrgs(database.admin, table);
      const { updated, deleted } = await asTenant(database.app, b.orgId, async (trx) => {
        const updated =
          await sql`update ${sql.table(`plan.${table}`)} set org_id = org_id where org_id = ${a.orgId}`.execute(trx);
        const deleted = await sql`delete from ${sql.table(`plan.${table}`)} where org_id = ${a.orgId}`.execute(trx);
        return { updated: Number(updated.numAffectedRows), deleted: Number(deleted.numAffectedRows) };
      });
      expect({ updated, deleted }).toEqual({ updated: 0, deleted: 0 });
      expect((await visibleOrgs(database.admin, table)).sort()).toEqual(before.sort());
    },
  );

  it('lets a tenant write its own rows in every table', async () => {
    await asTenant(database.app, a.orgId, async (trx) => {
      for (const table of PLAN_TABLES.filter((t) => t !== 'output_preferences')) {
        await trx.insertInto(`plan.${table}`).values(newRow(table, a)).execute();
      }
      await trx.updateTable('plan.output_preferences').set({ output_media_type: 'word' }).execute();
    });
    const prefs = await asTenant(database.app, a.orgId, (trx) =>
      trx.selectFrom('plan.output_preferences').selectAll().execute(),
    );
    expect(prefs).toEqual([expect.objectContaining({ org_id: a.orgId, output_media_type: 'word' })]);
  });

  it("refuses references across orgs even where row-level security does not look (the admin's foreign keys include org_id)", async () => {
    const stepOfBInPlanOfA = { ...newRow('plan_steps', a), org_id: b.orgId };
    await expect(database.admin.insertInto('plan.plan_steps').values(stepOfBInPlanOfA).execute()).rejects.toThrow(
      /violates foreign key constraint/,
    );
    const conditionTargetingStepOfB = { ...newRow('branching_conditions', a), target_step_id: b.stepIds[2] };
    await expect(
      database.admin.insertInto('plan.branching_conditions').values(conditionTargetingStepOfB).execute(),
    ).rejects.toThrow(/violates foreign key constraint/);
  });
});

describe('plan.count_stalled_plans: the one cross-tenant read, for the stalled-plans gauge', () => {
  it('returns one bigint, never rows, runs as the schema owner with a pinned search_path, and only quarry_plan_metrics may call it', async () => {
    const { rows } = await sql<{
      returns: string;
      set: boolean;
      definer: boolean;
      config: string[];
      owner: string;
      schemaOwner: string;
      grantees: string[];
    }>`
      select format_type(p.prorettype, null) as returns, p.proretset as set, p.prosecdef as definer, p.proconfig as config,
             pg_get_userbyid(p.proowner)::text as owner, pg_get_userbyid(n.nspowner)::text as "schemaOwner",
             array(select coalesce(nullif(a.grantee, 0)::regrole::text, 'PUBLIC') from aclexplode(p.proacl) a
                   where a.privilege_type = 'EXECUTE' order by 1) as grantees
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'plan' and p.proname = 'count_stalled_plans'`.execute(database.admin);
    expect(rows).toEqual([
      {
        returns: 'bigint',
        set: false,
        definer: true,
        config: ['search_path=pg_catalog, plan'],
        owner: rows[0]!.schemaOwner,
        schemaOwner: rows[0]!.schemaOwner,
        grantees: [rows[0]!.owner, 'quarry_plan_metrics'].sort(),
      },
    ]);
  });

  it("gives a member of quarry_plan_metrics a number, while its plain queries still see only the tenant's rows", async () => {
    await grantPlanMetrics(database.admin, TEST_APP_ROLE);
    await sql`update plan.plan_steps set status = 'in_progress', started_at = now() - interval '1 hour' where id in (${a.stepIds[0]}, ${b.stepIds[0]})`.execute(
      database.admin,
    );
    await sql`update plan.research_plans set status = 'executing' where id in (${a.planId}, ${b.planId})`.execute(
      database.admin,
    );
    const { rows } = await asTenant(database.app, a.orgId, (trx) =>
      sql<{ n: string }>`select plan.count_stalled_plans(interval '30 minutes') as n`.execute(trx),
    );
    expect(rows).toEqual([{ n: '2' }]); // both orgs' plans, as a count
    expect(new Set(await asTenant(database.app, a.orgId, (trx) => visibleOrgs(trx, 'research_plans')))).toEqual(
      new Set([a.orgId]),
    );
    await expect(
      assertTenantSafety(database.admin, { schemas: ['plan'], appRole: TEST_APP_ROLE }),
    ).resolves.toBeUndefined();
  });

  it('counts and sweeps every org when the schema owner is not a superuser (FORCE row level security binds it otherwise)', async () => {
    // A managed PostgreSQL whose admin is an ordinary role: it migrates and owns the schema.
    const owner = `plan_owner_${randomUUID().slice(0, 8)}`;
    const other = await createTestDatabase();
    await sql`create role ${sql.id(owner)} login password 'owner-password'`.execute(other.admin);
    await sql`grant create on database ${sql.id(other.name)} to ${sql.id(owner)}`.execute(other.admin);
    const url = new URL(other.adminUrl);
    url.username = owner;
    url.password = 'owner-password';
    const ownerDb = createDb({ connectionString: url.toString(), max: 1 });
    try {
      for (const { schema, migrations } of planSchemas) await migrate({ db: ownerDb, schema, migrations });
      await grantPlanMetrics(other.admin, TEST_APP_ROLE);
      const [x, y] = [await seedOrg(other.admin), await seedOrg(other.admin)];
      await sql`update plan.plan_steps set status = 'in_progress', started_at = now() - interval '1 hour' where id in (${x.stepIds[0]}, ${y.stepIds[0]})`.execute(
        other.admin,
      );
      await sql`update plan.research_plans set status = 'executing' where id in (${x.planId}, ${y.planId})`.execute(
        other.admin,
      );
      expect(await countStalledPlans(other.app, { thresholdMs: 30 * 60_000, timeoutMs: 2_000 })).toBe(2);
      // The stall sweep writes each plan under its own tenant, through the same policies.
      await grantPlanMaintenance(other.admin, TEST_APP_ROLE);
      expect(await markStalledPlans(other.app, { thresholdMs: 30 * 60_000, maxPlans: 10 })).toBe(2);
      const { rows } = await sql<{ status: string; marks: string }>`
        select p.status, (select count(*) from plan.plan_audit_log a
          where a.plan_id = p.id and a.details->>'cause' = 'stall_detected') as marks
        from plan.research_plans p where p.id in (${x.planId}, ${y.planId})`.execute(other.admin);
      expect(rows).toEqual([
        { status: 'stalled', marks: '1' },
        { status: 'stalled', marks: '1' },
      ]);
      await expect(
        assertTenantSafety(other.admin, { schemas: ['plan'], appRole: TEST_APP_ROLE }),
      ).resolves.toBeUndefined();
    } finally {
      await ownerDb.destroy();
      await other.drop();
      await sql`drop role ${sql.id(owner)}`.execute(database.admin);
    }
  });
});
