import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCli } from '@quarry/cli';
import { sql, withTenant } from '@quarry/db';
import { gatewaySchemas } from '@quarry/gateway';
import { checkpointAuditChains, grantPlanMaintenance, planSchemas } from '@quarry/plan-engine';
import { createLogger } from '@quarry/telemetry';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// `quarry audit verify` against a database whose audit log a superuser then edits: a clean log
// verifies (exit 0), a broken one is reported at its first broken link (exit 1), per org.

let database: TestDatabase;
let dir: string;
let env: Record<string, string>;
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const [a, b] = [randomUUID(), randomUUID()];

async function quarry(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...gatewaySchemas, ...planSchemas] });
  await grantPlanMaintenance(database.admin, database.appRole);
  dir = mkdtempSync(join(tmpdir(), 'quarry-audit-'));
  env = { DATABASE_URL: database.adminUrl, QUARRY_DATA_DIR: dir };
  writeFileSync(join(dir, 'audit-public-key.pem'), publicKey.export({ type: 'spki', format: 'pem' }));
  writeFileSync(
    join(dir, 'other-public-key.pem'),
    generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }),
  );
  for (const orgId of [a, b]) {
    await database.admin
      .insertInto('plan.research_plans')
      .values({ id: orgId, org_id: orgId, name: 'P', research_question: 'Q' })
      .execute();
    for (let i = 0; i < 4; i++) {
      await withTenant(database.app, { orgId }, (trx) =>
        sql`insert into plan.plan_audit_log (org_id, plan_id, event_type) values (${orgId}, ${orgId}, 'session_resumed')`.execute(
          trx,
        ),
      );
    }
  }
  // The plan engine's checkpointer, as it runs in the engine.
  await checkpointAuditChains(database.app, {
    signingKey: privateKey,
    logger: createLogger({ service: 'plan-engine', level: 'silent' }),
  });
});
afterAll(async () => {
  await database?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('quarry audit verify', () => {
  it('verifies a clean log of every org, signatures included, and exits 0', async () => {
    const result = await quarry('audit', 'verify', '--public-key', join(dir, 'audit-public-key.pem'));
    expect(result.code).toBe(0);
    expect(result.out).toContain(`org ${a}: ok, 4 entries (4 rows, 0 tombstones, 0 purged), 1 checkpoint(s)`);
    expect(result.out).toContain(`org ${b}: ok`);
    expect(result.out).toContain('Verified the audit log of 2 org(s).');
    expect(result.err).toBe('');
  });

  it('says when it could not check the signatures', async () => {
    const result = await quarry('audit', 'verify', '--org', a);
    expect(result.code).toBe(0);
    expect(result.err).toMatch(/signatures not checked/);
  });

  it('reports the first broken link of an org a superuser edited, and exits 1', async () => {
    await database.admin.transaction().execute(async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx);
      await sql`update plan.plan_audit_log set session_id = 'rewritten' where org_id = ${b} and chain_seq = 2`.execute(
        trx,
      );
    });
    const all = await quarry('audit', 'verify', '--public-key', join(dir, 'audit-public-key.pem'));
    expect(all.code).toBe(1);
    expect(all.out).toContain(`org ${a}: ok`);
    expect(all.err).toMatch(new RegExp(`org ${b}: BROKEN at entry 2 \\(plan_audit_log \\d+\\): .*edited`));
    expect(all.err).toContain('error: the audit log of 1 of 2 org(s) does not verify.');
    expect((await quarry('audit', 'verify', '--org', a, '--public-key', join(dir, 'audit-public-key.pem'))).code).toBe(
      0,
    );
  });

  it('refuses checkpoints signed with a key other than the one given', async () => {
    const result = await quarry('audit', 'verify', '--org', a, '--public-key', join(dir, 'other-public-key.pem'));
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/BROKEN at entry 4 .*signed by another key/);
  });
});
