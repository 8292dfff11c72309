import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCli } from '@quarry/cli';
import { createDb, type Kysely, sql } from '@quarry/db';
import type { IdentityDatabase } from '@quarry/gateway';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';

// `quarry service-account …` over a real migrated database: the secret is shown once and only
// its hash is stored, rotation and revocation apply at once, and each change is audited.

let database: TestDatabase;
let dataDir: string;
let env: Record<string, string>;
let db: Kysely<IdentityDatabase>;

async function quarry(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const issued = (out: string) => ({
  clientId: /client id: +(qsa_\w+)/.exec(out)?.[1] ?? '',
  secret: /client secret: +(qss_[\w-]+)/.exec(out)?.[1] ?? '',
});

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [] });
  dataDir = mkdtempSync(join(tmpdir(), 'quarry-cli-sa-'));
  env = {
    DATABASE_URL: database.adminUrl,
    QUARRY_APP_ROLE: 'cli_sa_app',
    QUARRY_APP_ROLE_PASSWORD: 'cli-sa-app-0123456789',
    QUARRY_INDEXER_ROLE: 'cli_sa_indexer',
    QUARRY_INDEXER_ROLE_PASSWORD: 'cli-sa-indexer-0123456789',
    QUARRY_DATA_DIR: dataDir,
  };
  expect((await quarry('migrate')).code).toBe(0);
  await quarry('org', 'create', 'acme');
  await quarry('org', 'create', 'globex');
  db = createDb<IdentityDatabase>({ connectionString: database.adminUrl, max: 1 });
}, 120_000);
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('quarry service-account', () => {
  it('creates one with its scopes, prints the secret once and stores only its hash', async () => {
    const created = await quarry(
      'service-account',
      'create',
      'etl',
      '--org',
      'acme',
      '--scopes',
      'quarry:read,quarry:write',
    );
    expect(created).toMatchObject({ code: 0, out: expect.stringContaining('Created service account etl in acme') });
    const { clientId, secret } = issued(created.out);
    expect(clientId).toMatch(/^qsa_[0-9a-f]{24}$/);
    expect(secret).toMatch(/^qss_[\w-]{43}$/);
    const row = await db
      .selectFrom('identity.service_accounts')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirstOrThrow();
    expect(row.scopes).toEqual(['quarry:read', 'quarry:write']);
    expect(row.secret_hash.equals(createHash('sha256').update(secret).digest())).toBe(true);
    expect(JSON.stringify(row)).not.toContain(secret.slice(4));

    const listed = await quarry('service-account', 'list', '--org', 'acme');
    expect(listed.out).toContain(clientId);
    expect(listed.out).not.toContain(secret);
    expect((await quarry('service-account', 'list', '--org', 'globex')).out).not.toContain(clientId);
  });

  it('refuses a duplicate name in the same org, an unknown scope and an unknown org', async () => {
    expect(await quarry('service-account', 'create', 'etl', '--org', 'acme')).toMatchObject({
      code: 1,
      err: expect.stringContaining('already has a service account "etl"'),
    });
    expect((await quarry('service-account', 'create', 'etl', '--org', 'globex')).code).toBe(0);
    expect(await quarry('service-account', 'create', 'x', '--org', 'acme', '--scopes', 'quarry:root')).toMatchObject({
      code: 1,
      err: expect.stringContaining('Unknown scope "quarry:root"'),
    });
    expect(await quarry('service-account', 'create', 'x', '--org', 'nowhere')).toMatchObject({
      code: 1,
      err: expect.stringContaining('No organization "nowhere"'),
    });
  });

  it('rotates the secret and revokes, each audited; a revoked account is kept, never deleted', async () => {
    const { clientId, secret } = issued((await quarry('service-account', 'create', 'batch', '--org', 'acme')).out);
    const rotated = await quarry('service-account', 'rotate', clientId);
    expect(rotated.code).toBe(0);
    const next = issued(rotated.out);
    expect(next.clientId).toBe(clientId);
    expect(next.secret).not.toBe(secret);

    expect(await quarry('service-account', 'revoke', clientId)).toMatchObject({
      code: 0,
      out: expect.stringContaining(`Revoked service account batch (${clientId}) in acme`),
    });
    expect((await quarry('service-account', 'list')).out).not.toContain(clientId);
    expect((await quarry('service-account', 'list', '--all')).out).toContain(clientId);
    expect(await quarry('service-account', 'revoke', clientId)).toMatchObject({
      code: 1,
      err: expect.stringContaining('is revoked'),
    });
    expect((await quarry('service-account', 'rotate', clientId)).code).toBe(1);

    const events = await db
      .selectFrom('identity.auth_events')
      .select(['event', 'org_slug'])
      .where('client_id', '=', clientId)
      .orderBy('id')
      .execute();
    expect(events).toEqual([
      { event: 'service_account_created', org_slug: 'acme' },
      { event: 'service_account_secret_rotated', org_slug: 'acme' },
      { event: 'service_account_revoked', org_slug: 'acme' },
    ]);
    await expect(sql`delete from identity.service_accounts where client_id = ${clientId}`.execute(db)).rejects.toThrow(
      /revoked, never deleted/,
    );
  });
});
