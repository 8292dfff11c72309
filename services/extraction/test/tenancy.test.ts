import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { assertTenantSafety, createDb, type Kysely, rlsReport, sql } from '@quarry/db';
import { createTestDatabase, TEST_APP_ROLE, type TestDatabase } from '@quarry/testing';
import { grantExtractionMaintenance } from '../src/maintenance-role.js';
import { extractionSchemas } from '../src/migrations/index.js';
import { createCitationVerifications } from '../src/store/citation-verifications.js';

// Row-level security of the `extraction` schema, seen through the app role the service connects
// as: every table is org-scoped, and a citation verification of one org is invisible to another
// (found exactly like a missing one).

let database: TestDatabase;
let app: Kysely<unknown>;

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...extractionSchemas] });
  await grantExtractionMaintenance(database.admin, database.appRole);
  app = createDb<unknown>({ connectionString: database.appUrl, max: 1 });
});
afterAll(async () => {
  await app?.destroy();
  await database?.drop();
});

describe('the extraction schema is tenant-safe', () => {
  it('has RLS enabled and forced with a tenant policy on every table, and the app role owns nothing and bypasses nothing', async () => {
    await expect(
      assertTenantSafety(database.admin, { schemas: ['extraction'], appRole: TEST_APP_ROLE }),
    ).resolves.toBeUndefined();
    const report = await rlsReport(database.admin, ['extraction']);
    const scoped = report.filter((t) => t.hasOrgId && t.rlsEnabled && t.rlsForced).map((t) => t.table);
    expect(scoped.sort()).toEqual([
      'citation_verifications',
      'jobs',
      'org_daily_usage',
      'org_quotas',
      'pending_submissions',
    ]);
  });

  it("finds another org's citation verification exactly as a missing one", async () => {
    const store = createCitationVerifications(app);
    const orgA = randomUUID();
    const orgB = randomUUID();
    const id = randomUUID();
    const now = new Date();
    await store.add({
      id,
      orgId: orgA,
      principal: 'ada',
      claims: [{ claimNo: 1, text: 'x', cited: [], sourceIds: [], findings: [], passageIds: ['p1'] }],
      passages: [{ id: 'p1', sourceId: randomUUID(), text: 'x', start: 0, end: 1 }],
      createdAt: now,
      expiresAt: new Date(now.getTime() + 60_000),
    });
    expect(await store.find({ orgId: orgA, principal: 'ada' }, id, now)).toMatchObject({ claims: [{ claimNo: 1 }] });
    expect(await store.find({ orgId: orgB, principal: 'ada' }, id, now)).toBeUndefined();
    expect(await store.find({ orgId: orgA, principal: 'eve' }, id, now)).toBeUndefined();
    expect(await store.find({ orgId: orgA, principal: 'ada' }, id, new Date(now.getTime() + 120_000))).toBeUndefined();
    expect(
      await store.settle({ orgId: orgB }, id, { verdicts: [], reportArtifactId: randomUUID(), supportRatio: 1 }, now),
    ).toBe(false);
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from extraction.citation_verifications where submitted_at is not null`.execute(
      database.admin,
    );
    expect(rows[0]!.n).toBe(0);
  });

  it('has the upkeep sweep delete expired verifications never submitted, and keep submitted ones (their record)', async () => {
    const store = createCitationVerifications(app);
    const orgId = randomUUID();
    const past = new Date(Date.now() - 60_000);
    const row = (id: string) => ({
      id,
      orgId,
      principal: 'ada',
      claims: [],
      passages: [],
      createdAt: new Date(past.getTime() - 1000),
      expiresAt: past,
    });
    const [lapsed, submitted, live] = [randomUUID(), randomUUID(), randomUUID()];
    await store.add(row(lapsed));
    await store.add(row(submitted));
    await store.add({ ...row(live), expiresAt: new Date(Date.now() + 60_000) });
    expect(
      await store.settle({ orgId }, submitted, { verdicts: [], reportArtifactId: randomUUID(), supportRatio: 1 }, past),
    ).toBe(true);
    await sql`select * from extraction.maintain(${randomUUID()}::uuid, interval '30 seconds', 3, 10)`.execute(app);
    const { rows } = await sql<{
      id: string;
    }>`select id::text from extraction.citation_verifications where org_id = ${orgId}::uuid`.execute(database.admin);
    expect(rows.map((r) => r.id).sort()).toEqual([submitted, live].sort());
  });
});
