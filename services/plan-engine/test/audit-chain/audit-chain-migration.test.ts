import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { migrate, sql, withTenant } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { planSchemas } from '../../src/index.js';
import { seedOrg, type SeededOrg } from '../migrations/fixtures.js';
import { chainPositions, verifyOrg } from '../support/audit-chain.js';

// The audit_chain migration chains what was written before it, per org, so the log of an
// upgraded database verifies from its first entry.

const CHAIN_MIGRATION = '2026_11_28_1700_audit_chain';
const { schema, migrations } = planSchemas[0]!;
let database: TestDatabase;
let orgs: SeededOrg[];

beforeAll(async () => {
  const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < CHAIN_MIGRATION));
  database = await createTestDatabase({ schemas: [{ schema, migrations: before }] });
  const first = await seedOrg(database.admin);
  await seedOrg(database.admin, first.orgId);
  orgs = [first, await seedOrg(database.admin)];
  await migrate({ db: database.admin, schema, migrations });
});
afterAll(async () => {
  await database?.drop();
});

describe('the audit_chain migration', () => {
  it('chains the existing audit rows and tombstones of each org from 1, and they verify', async () => {
    for (const { orgId } of orgs) {
      const chain = await chainPositions(database.admin, orgId);
      expect(chain.map(([seq]) => seq)).toEqual(chain.map((_, i) => i + 1));
      expect(chain.some(([, kind]) => kind === 'tombstone')).toBe(true);
      expect(chain.some(([, kind]) => kind === 'row')).toBe(true);
      const verified = await verifyOrg(database.admin, orgId);
      expect(verified.break).toBeUndefined();
      expect(verified.entries).toBe(chain.length);
      // The heads were written too: what is written next continues each chain.
      await withTenant(database.app, { orgId }, (trx) =>
        sql`insert into plan.plan_audit_log (org_id, plan_id, event_type) values (${orgId}, ${orgs[0]!.orgId === orgId ? orgs[0]!.planId : orgs[1]!.planId}, 'session_resumed')`.execute(
          trx,
        ),
      );
      const next = await verifyOrg(database.admin, orgId);
      expect(next.break).toBeUndefined();
      expect(next.entries).toBe(chain.length + 1);
    }
  });
});
