import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { assertTenantSafety, createDb, type Kysely, rlsReport, sql } from '@quarry/db';
import { createIdentityAdmin, gatewaySchemas, hashToken, type IdentityDatabase } from '@quarry/gateway';
import { createTestDatabase, TEST_APP_ROLE, type TestDatabase } from '@quarry/testing';

let database: TestDatabase;
let app: Kysely<IdentityDatabase>;
let tokenA: { id: string; token: string };
let orgA: string;
let orgB: string;

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...gatewaySchemas] });
  app = createDb<IdentityDatabase>({ connectionString: database.appUrl, max: 1 });
  const admin = createIdentityAdmin(database.admin as Kysely<IdentityDatabase>);
  orgA = (await admin.createOrg({ slug: 'org-a' })).id;
  orgB = (await admin.createOrg({ slug: 'org-b' })).id;
  await admin.addUser({ email: 'a@a.test', orgSlug: 'org-a' });
  await admin.addUser({ email: 'b@b.test', orgSlug: 'org-b' });
  tokenA = await admin.createToken({ orgSlug: 'org-a', email: 'a@a.test' });
  await admin.createToken({ orgSlug: 'org-b', email: 'b@b.test' });
});
afterAll(async () => {
  await app?.destroy();
  await database?.drop();
});

async function asApp<T>(
  settings: Record<string, string>,
  fn: (trx: Kysely<IdentityDatabase>) => Promise<T>,
): Promise<T> {
  return app.transaction().execute(async (trx) => {
    for (const [key, value] of Object.entries(settings))
      await sql`select set_config(${key}, ${value}, true)`.execute(trx);
    return fn(trx);
  });
}

describe('the gateway schemas are tenant-safe', () => {
  it('every org-scoped table has RLS enabled and forced with a tenant policy, and the app role owns nothing and bypasses nothing', async () => {
    await expect(
      assertTenantSafety(database.admin, { schemas: ['identity', 'gateway'], appRole: TEST_APP_ROLE }),
    ).resolves.toBeUndefined();
    const report = await rlsReport(database.admin, ['identity', 'gateway']);
    const scoped = report
      .filter((t) => t.hasOrgId)
      .map((t) => `${t.schema}.${t.table}`)
      .sort();
    expect(scoped).toEqual([
      'gateway.mcp_tasks',
      'gateway.mcp_tool_call_log',
      'gateway.org_call_quotas',
      'identity.invitations',
      'identity.memberships',
      'identity.oauth_grants',
      'identity.personal_access_tokens',
      'identity.service_accounts',
    ]);
  });

  it('lets the app role see tokens only of its tenant, and none without one', async () => {
    const count = (trx: Kysely<IdentityDatabase>) =>
      trx.selectFrom('identity.personal_access_tokens').select('org_id').execute();
    expect(await asApp({}, count)).toHaveLength(0);
    expect((await asApp({ 'app.org_id': orgA }, count)).map((r) => r.org_id)).toEqual([orgA]);
    expect((await asApp({ 'app.org_id': orgB }, count)).map((r) => r.org_id)).toEqual([orgB]);
    // Same pooled connection again, no tenant: nothing leaks from the previous transaction.
    expect(await asApp({}, count)).toHaveLength(0);
  });

  it('lets an unauthenticated lookup read exactly the token whose hash it presents', async () => {
    const rows = await asApp({ 'app.token_hash': hashToken(tokenA.token).toString('hex') }, (trx) =>
      trx.selectFrom('identity.personal_access_tokens').select('id').execute(),
    );
    expect(rows.map((r) => r.id)).toEqual([tokenA.id]);
    const none = await asApp({ 'app.token_hash': hashToken(`qry_${'x'.repeat(43)}`).toString('hex') }, (trx) =>
      trx.selectFrom('identity.personal_access_tokens').select('id').execute(),
    );
    expect(none).toHaveLength(0);
  });

  it('does not let a token lookup write, and does not let the app role change the tables', async () => {
    const updated = await asApp({ 'app.token_hash': hashToken(tokenA.token).toString('hex') }, (trx) =>
      trx.updateTable('identity.personal_access_tokens').set({ name: 'hijacked' }).executeTakeFirst(),
    );
    expect(Number(updated.numUpdatedRows)).toBe(0);
    await expect(
      sql`alter table identity.personal_access_tokens no force row level security`.execute(app),
    ).rejects.toThrow(/must be owner/);
    await expect(sql`create table identity.sneaky (id int)`.execute(app)).rejects.toThrow(/permission denied/);
  });
});
