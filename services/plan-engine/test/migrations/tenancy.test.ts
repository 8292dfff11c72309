import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { assertTenantSafety, rlsReport, sql } from '@quarry/db';
import { createTestDatabase, TEST_APP_ROLE, type TestDatabase } from '@quarry/testing';
import { planSchemas } from '../../src/migrations/index.js';
import { asTenant, newRow, PLAN_TABLES, seedOrg, visibleOrgs, type SeededOrg } from './fixtures.js';

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
    await expect(assertTenantSafety(database.admin, { schemas: ['plan'], appRole: TEST_APP_ROLE })).resolves.toBeUndefined();
    const report = await rlsReport(database.admin, ['plan']);
    const tables = report.filter((t) => t.table !== 'kysely_migration' && t.table !== 'kysely_migration_lock');
    expect(tables.map((t) => t.table).sort()).toEqual([...PLAN_TABLES].sort());
    for (const t of tables) {
      expect({ table: t.table, hasOrgId: t.hasOrgId, enabled: t.rlsEnabled, forced: t.rlsForced, policies: t.policies }).toEqual({
        table: t.table,
        hasOrgId: true,
        enabled: true,
        forced: true,
        policies: ['tenant_isolation'],
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

  it.each(PLAN_TABLES)("%s: a row for another org is refused, on insert and on update (WITH CHECK)", async (table) => {
    await expect(asTenant(database.app, b.orgId, (trx) => trx.insertInto(`plan.${table}`).values(newRow(table, a)).execute())).rejects.toThrow(
      /violates row-level security policy/,
    );
    // No tenant at all: nothing may be written either.
    await expect(asTenant(database.app, undefined, (trx) => trx.insertInto(`plan.${table}`).values(newRow(table, a)).execute())).rejects.toThrow(
      /violates row-level security policy/,
    );
    const moveToB = asTenant(database.app, a.orgId, (trx) => trx.updateTable(`plan.${table}`).set({ org_id: b.orgId }).execute());
    // The audit log refuses every UPDATE before row-level security gets to look.
    await expect(moveToB).rejects.toThrow(table === 'plan_audit_log' ? /append-only/ : /violates row-level security policy/);
  });

  it.each(PLAN_TABLES.filter((t) => t !== 'plan_audit_log'))("%s: org B can neither change nor delete org A's rows", async (table) => {
    const before = await visibleOrgs(database.admin, table);
    const { updated, deleted } = await asTenant(database.app, b.orgId, async (trx) => {
      const updated = await sql`update ${sql.table(`plan.${table}`)} set org_id = org_id where org_id = ${a.orgId}`.execute(trx);
      const deleted = await sql`delete from ${sql.table(`plan.${table}`)} where org_id = ${a.orgId}`.execute(trx);
      return { updated: Number(updated.numAffectedRows), deleted: Number(deleted.numAffectedRows) };
    });
    expect({ updated, deleted }).toEqual({ updated: 0, deleted: 0 });
    expect((await visibleOrgs(database.admin, table)).sort()).toEqual(before.sort());
  });

  it("lets a tenant write its own rows in every table", async () => {
    await asTenant(database.app, a.orgId, async (trx) => {
      for (const table of PLAN_TABLES.filter((t) => t !== 'output_preferences')) {
        await trx.insertInto(`plan.${table}`).values(newRow(table, a)).execute();
      }
      await trx.updateTable('plan.output_preferences').set({ output_media_type: 'word' }).execute();
    });
    const prefs = await asTenant(database.app, a.orgId, (trx) => trx.selectFrom('plan.output_preferences').selectAll().execute());
    expect(prefs).toEqual([expect.objectContaining({ org_id: a.orgId, output_media_type: 'word' })]);
  });

  it("refuses references across orgs even where row-level security does not look (the admin's foreign keys include org_id)", async () => {
    const stepOfBInPlanOfA = { ...newRow('plan_steps', a), org_id: b.orgId };
    await expect(database.admin.insertInto('plan.plan_steps').values(stepOfBInPlanOfA).execute()).rejects.toThrow(/violates foreign key constraint/);
    const conditionTargetingStepOfB = { ...newRow('branching_conditions', a), target_step_id: b.stepIds[2] };
    await expect(database.admin.insertInto('plan.branching_conditions').values(conditionTargetingStepOfB).execute()).rejects.toThrow(
      /violates foreign key constraint/,
    );
  });
});
