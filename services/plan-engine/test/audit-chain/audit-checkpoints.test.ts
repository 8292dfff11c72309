import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql, withTenant } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpointAuditChains } from '../../src/audit-checkpointer.js';
import { grantPlanMaintenance, loadPlanEngineConfig, planSchemas, startPlanEngine } from '../../src/index.js';
import { KEY, logger } from '../grpc-support.js';
import { verifyOrg } from '../support/audit-chain.js';
import { sleep } from '../support/plan-api.js';

// Checkpoints: the plan engine signs each org's head when its chain has grown, with a key the
// database never sees; the app role reaches the ledger only through the two functions.

let database: TestDatabase;
const { privateKey, publicKey } = generateKeyPairSync('ed25519');

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...planSchemas] });
  await grantPlanMaintenance(database.admin, database.appRole);
});
afterAll(async () => {
  await database?.drop();
});

async function newOrg(): Promise<string> {
  const orgId = randomUUID();
  await database.admin
    .insertInto('plan.research_plans')
    .values({ id: orgId, org_id: orgId, name: 'P', research_question: 'Q' })
    .execute();
  return orgId;
}

const audit = (orgId: string, n = 1) =>
  withTenant(database.app, { orgId }, async (trx) => {
    for (let i = 0; i < n; i++)
      await sql`insert into plan.plan_audit_log (org_id, plan_id, event_type) values (${orgId}, ${orgId}, 'session_resumed')`.execute(
        trx,
      );
  });

const checkpointsOf = async (orgId: string) =>
  (
    await sql<{
      entries: string;
    }>`select entries::text from plan_ledger.checkpoints where org_id = ${orgId} order by entries`.execute(
      database.admin,
    )
  ).rows.map((r) => Number(r.entries));

describe('audit checkpoints', () => {
  it('signs each org whose chain grew, once, and again only after it grows', async () => {
    const [a, b] = [await newOrg(), await newOrg()];
    await audit(a, 3);
    await audit(b, 2);
    await checkpointAuditChains(database.app, { signingKey: privateKey, logger });
    expect(await checkpointsOf(a)).toEqual([3]);
    expect(await checkpointsOf(b)).toEqual([2]);
    expect(await checkpointAuditChains(database.app, { signingKey: privateKey, logger })).toBe(0);
    await audit(a, 2);
    // Two replicas at once: one checkpoint per head all the same.
    await Promise.all([
      checkpointAuditChains(database.app, { signingKey: privateKey, logger }),
      checkpointAuditChains(database.app, { signingKey: privateKey, logger }),
    ]);
    expect(await checkpointsOf(a)).toEqual([3, 5]);
    for (const orgId of [a, b]) {
      const verified = await verifyOrg(database.admin, orgId, publicKey);
      expect(verified.break).toBeUndefined();
      expect(verified).toMatchObject({ signaturesChecked: true });
    }
    expect((await verifyOrg(database.admin, a, publicKey)).checkpoints).toBe(2);
  });

  it('keeps the ledger out of the app role’s reach', async () => {
    const orgId = await newOrg();
    await audit(orgId);
    for (const statement of [
      sql`select * from plan_ledger.checkpoints`,
      sql`update plan_ledger.chain_heads set last_seq = 0`,
      sql`insert into plan_ledger.checkpoints (org_id, entries, head_hash, key_id, signature, signed_at)
          values (${orgId}, 1, ${'0'.repeat(64)}, ${'0'.repeat(64)}, 'x', now())`,
    ]) {
      await expect(statement.execute(database.app)).rejects.toThrow(/permission denied/);
    }
    await expect(
      sql`delete from plan_ledger.checkpoints where org_id = ${orgId}`.execute(database.admin),
    ).rejects.toThrow(/append-only/);
  });

  it('runs in the engine every QUARRY_AUDIT_CHECKPOINT_INTERVAL with the key of QUARRY_AUDIT_SIGNING_KEY_FILE', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-key-'));
    try {
      const file = join(dir, 'audit-signing-key.pem');
      writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }));
      const config = loadPlanEngineConfig({
        DATABASE_URL: database.appUrl,
        QUARRY_IDENTITY_KEY: KEY,
        QUARRY_AUDIT_SIGNING_KEY_FILE: file,
        QUARRY_AUDIT_CHECKPOINT_INTERVAL: '100ms',
      });
      expect(config.QUARRY_AUDIT_CHECKPOINT_INTERVAL).toBe(100);
      const orgId = await newOrg();
      await audit(orgId, 2);
      const engine = await startPlanEngine({
        databaseUrl: database.appUrl,
        identityKey: KEY,
        logger,
        host: '127.0.0.1',
        port: 0,
        auditSigningKey: config.QUARRY_AUDIT_SIGNING_KEY_FILE as typeof privateKey,
        auditCheckpointIntervalMs: config.QUARRY_AUDIT_CHECKPOINT_INTERVAL,
      });
      try {
        for (let waited = 0; (await checkpointsOf(orgId)).length === 0 && waited < 5000; waited += 50) await sleep(50);
      } finally {
        await engine.close(1000);
      }
      expect(await checkpointsOf(orgId)).toEqual([2]);
      expect((await verifyOrg(database.admin, orgId, publicKey)).break).toBeUndefined();

      // A key that is not an Ed25519 private key, or no key at all, stops the engine from starting.
      const rsa = join(dir, 'rsa.pem');
      writeFileSync(
        rsa,
        generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
      );
      for (const bad of [rsa, join(dir, 'missing.pem')]) {
        expect(() =>
          loadPlanEngineConfig({
            DATABASE_URL: database.appUrl,
            QUARRY_IDENTITY_KEY: KEY,
            QUARRY_AUDIT_SIGNING_KEY_FILE: bad,
          }),
        ).toThrow(/QUARRY_AUDIT_SIGNING_KEY_FILE/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
