import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type AnyDb, sql, withTenant } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { checkpointAuditChains } from '../../src/audit-checkpointer.js';
import { grantPlanMaintenance, planSchemas } from '../../src/index.js';
import { logger } from '../grpc-support.js';
import { asSuperuserWithoutTriggers, verifyOrg } from '../support/audit-chain.js';

// What a database owner can do with the audit log past every trigger (a superuser with
// session_replication_role = replica) is found by the verifier at the first position it breaks:
// an edited row, a deleted one, a forged one slipped in, two rows swapped, the tail removed
// after a checkpoint, a checkpoint rewritten or signed with another key.

let database: TestDatabase;
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const admin = () => database.admin;

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...planSchemas] });
  await grantPlanMaintenance(database.admin, database.appRole);
});
afterAll(async () => {
  await database?.drop();
});

/** An org with `n` audit rows written by the app role, one transaction each, and a signed checkpoint of them. */
async function orgWithRows(n: number): Promise<string> {
  const orgId = randomUUID();
  await admin()
    .insertInto('plan.research_plans')
    .values({ id: orgId, org_id: orgId, name: 'P', research_question: 'Q' })
    .execute();
  for (let i = 1; i <= n; i++) {
    await withTenant(database.app, { orgId }, (trx) =>
      sql`insert into plan.plan_audit_log (org_id, plan_id, event_type, details)
          values (${orgId}, ${orgId}, 'plan_modified', ${JSON.stringify({ action: 'archive', i })})`.execute(trx),
    );
  }
  await checkpointAuditChains(database.app, { signingKey: privateKey, logger });
  return orgId;
}

const rowAt = async (db: AnyDb, orgId: string, seq: number) =>
  (
    await sql<{
      id: string;
    }>`select id::text from plan.plan_audit_log where org_id = ${orgId} and chain_seq = ${seq}`.execute(db)
  ).rows[0]!.id;

/** Recompute the row_hash of the org's row at `seq` from its prev_hash and content, as the chain trigger would. */
const rehash = (trx: AnyDb, orgId: string, seq: number) =>
  sql`update plan.plan_audit_log a set row_hash = plan.audit_sha256(a.prev_hash || plan.audit_sha256(plan.audit_row_content(a)))
      where org_id = ${orgId} and chain_seq = ${seq}`.execute(trx);

describe('quarry audit verify against a database owner', () => {
  it('verifies an untouched log, its checkpoint signature included', async () => {
    const orgId = await orgWithRows(6);
    const verified = await verifyOrg(admin(), orgId, publicKey);
    expect(verified).toMatchObject({ entries: 6, rows: 6, checkpoints: 1, signaturesChecked: true });
    expect(verified.break).toBeUndefined();
  });

  it('finds an edited row at its position', async () => {
    const orgId = await orgWithRows(6);
    const id = await rowAt(admin(), orgId, 3);
    await asSuperuserWithoutTriggers(admin(), (trx) =>
      sql`update plan.plan_audit_log set details = '{"action": "archive", "i": 99}' where id = ${id}`.execute(trx),
    );
    expect((await verifyOrg(admin(), orgId, publicKey)).break).toEqual({
      seq: 3,
      entry: `plan_audit_log ${id}`,
      reason: expect.stringMatching(/edited/),
    });
  });

  it('finds an edit that rehashes the row itself at the next one', async () => {
    const orgId = await orgWithRows(6);
    const id = await rowAt(admin(), orgId, 3);
    // The owner recomputes the row's own hash with the database's function; the next row still points to the old one.
    await asSuperuserWithoutTriggers(admin(), async (trx) => {
      await sql`update plan.plan_audit_log set details = '{"action": "archive", "i": 99}' where id = ${id}`.execute(
        trx,
      );
      await rehash(trx, orgId, 3);
    });
    expect((await verifyOrg(admin(), orgId, publicKey)).break).toMatchObject({
      seq: 4,
      reason: expect.stringMatching(/prev_hash/),
    });
  });

  it('finds a deleted row at its position', async () => {
    const orgId = await orgWithRows(6);
    const id = await rowAt(admin(), orgId, 2);
    await asSuperuserWithoutTriggers(admin(), (trx) =>
      sql`delete from plan.plan_audit_log where id = ${id}`.execute(trx),
    );
    expect((await verifyOrg(admin(), orgId, publicKey)).break).toEqual({
      seq: 2,
      reason: expect.stringMatching(/removed/),
    });
  });

  it('finds a forged row inserted in the middle, with hashes made to fit, where the chain resumes', async () => {
    const orgId = await orgWithRows(6);
    await asSuperuserWithoutTriggers(admin(), async (trx) => {
      await sql`update plan.plan_audit_log set chain_seq = -chain_seq where org_id = ${orgId} and chain_seq >= 4`.execute(
        trx,
      );
      await sql`update plan.plan_audit_log set chain_seq = 1 - chain_seq where org_id = ${orgId} and chain_seq < 0`.execute(
        trx,
      );
      await sql`insert into plan.plan_audit_log (org_id, plan_id, event_type, details, chain_seq, prev_hash, row_hash)
        select ${orgId}, ${orgId}, 'plan_modified', '{"action": "unarchive"}', 4, p.row_hash, p.row_hash
        from plan.plan_audit_log p where p.org_id = ${orgId} and p.chain_seq = 3`.execute(trx);
      await rehash(trx, orgId, 4);
    });
    expect((await verifyOrg(admin(), orgId, publicKey)).break).toMatchObject({
      seq: 5,
      reason: expect.stringMatching(/prev_hash/),
    });
  });

  it('finds two rows swapped', async () => {
    const orgId = await orgWithRows(6);
    const [second, fifth] = [await rowAt(admin(), orgId, 2), await rowAt(admin(), orgId, 5)];
    await asSuperuserWithoutTriggers(admin(), async (trx) => {
      await sql`update plan.plan_audit_log set chain_seq = 0 where id = ${second}`.execute(trx);
      await sql`update plan.plan_audit_log set chain_seq = 2 where id = ${fifth}`.execute(trx);
      await sql`update plan.plan_audit_log set chain_seq = 5 where id = ${second}`.execute(trx);
    });
    expect((await verifyOrg(admin(), orgId, publicKey)).break).toMatchObject({
      seq: 2,
      entry: `plan_audit_log ${fifth}`,
    });
  });

  it('finds the tail removed after a checkpoint (and the head put back to match)', async () => {
    const orgId = await orgWithRows(6);
    await asSuperuserWithoutTriggers(admin(), async (trx) => {
      await sql`delete from plan.plan_audit_log where org_id = ${orgId} and chain_seq > 4`.execute(trx);
      await sql`update plan_ledger.chain_heads h set last_seq = 4, head_hash = a.row_hash
          from plan.plan_audit_log a where a.org_id = h.org_id and a.chain_seq = 4 and h.org_id = ${orgId}`.execute(
        trx,
      );
    });
    expect((await verifyOrg(admin(), orgId, publicKey)).break).toEqual({
      seq: 5,
      reason: expect.stringMatching(/ends at 4 entries, but a checkpoint covers 6/),
    });
  });

  it('finds a rewritten chain under its checkpoint, and a checkpoint forged to match it, by its signature', async () => {
    const orgId = await orgWithRows(4);
    // Rewrite row 2 and rehash everything after it, as the database computes it.
    await asSuperuserWithoutTriggers(admin(), async (trx) => {
      await sql`update plan.plan_audit_log set details = '{"action": "archive", "i": 0}' where org_id = ${orgId} and chain_seq = 2`.execute(
        trx,
      );
      for (const seq of [2, 3, 4]) {
        await sql`update plan.plan_audit_log a set
            prev_hash = (select p.row_hash from plan.plan_audit_log p where p.org_id = a.org_id and p.chain_seq = a.chain_seq - 1)
          where org_id = ${orgId} and chain_seq = ${seq}`.execute(trx);
        await rehash(trx, orgId, seq);
      }
    });
    expect((await verifyOrg(admin(), orgId, publicKey)).break).toMatchObject({
      seq: 4,
      reason: expect.stringMatching(/rewritten/),
    });
    // The checkpoint replaced by one that matches, signed with the owner's own key.
    const forger = generateKeyPairSync('ed25519').privateKey;
    await asSuperuserWithoutTriggers(admin(), async (trx) => {
      await sql`delete from plan_ledger.checkpoints where org_id = ${orgId}`.execute(trx);
      await sql`update plan_ledger.chain_heads h set head_hash = a.row_hash
          from plan.plan_audit_log a where a.org_id = h.org_id and a.chain_seq = 4 and h.org_id = ${orgId}`.execute(
        trx,
      );
    });
    await checkpointAuditChains(database.app, { signingKey: forger, logger });
    expect((await verifyOrg(admin(), orgId, publicKey)).break).toMatchObject({
      seq: 4,
      reason: expect.stringMatching(/signed by another key/),
    });
    // Without the public key the forged checkpoint passes: that is what the key is for.
    expect((await verifyOrg(admin(), orgId)).break).toBeUndefined();
  });

  it('finds a forged tombstone that passes a live row off as purged', async () => {
    const orgId = await orgWithRows(3);
    await asSuperuserWithoutTriggers(admin(), (trx) =>
      sql`insert into plan.deleted_plans (org_id, plan_id, deleted_by, steps_deleted, artifacts_deleted, outputs_deleted,
            extraction_results_deleted, audit_rows_purged, audit_rows_sha256, purged_links, chain_seq, prev_hash, row_hash)
          values (${orgId}, ${randomUUID()}, 'owner', 0, 0, 0, 0, 1, ${'a'.repeat(64)}, ${JSON.stringify([[2, 'b'.repeat(64)]])},
            4, ${'0'.repeat(64)}, ${'0'.repeat(64)})`.execute(trx),
    );
    expect((await verifyOrg(admin(), orgId, publicKey)).break).toMatchObject({
      seq: 2,
      reason: expect.stringMatching(/claimed twice/),
    });
  });
});
