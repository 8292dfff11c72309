import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCli } from '@quarry/cli';
import { createDb, type Kysely, sql } from '@quarry/db';
import type { IdentityDatabase } from '@quarry/gateway';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';

// The operator's OAuth commands over a real migrated database: sign-in passwords, token
// scopes, grants and clients.

let database: TestDatabase;
let dataDir: string;
let env: Record<string, string>;
let db: Kysely<IdentityDatabase>;
let secret = '';

async function quarry(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    env,
    readSecret: async () => secret,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [] });
  dataDir = mkdtempSync(join(tmpdir(), 'quarry-cli-oauth-'));
  env = {
    DATABASE_URL: database.adminUrl,
    QUARRY_APP_ROLE: 'cli_oauth_app',
    QUARRY_APP_ROLE_PASSWORD: 'cli-oauth-app-0123456789',
    QUARRY_INDEXER_ROLE: 'cli_oauth_indexer',
    QUARRY_INDEXER_ROLE_PASSWORD: 'cli-oauth-indexer-0123456789',
    QUARRY_DATA_DIR: dataDir,
  };
  expect((await quarry('migrate')).code).toBe(0);
  await quarry('org', 'create', 'acme');
  await quarry('user', 'add', 'ada@acme.test', '--org', 'acme');
  db = createDb<IdentityDatabase>({ connectionString: database.adminUrl, max: 1 });
}, 120_000);
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('quarry user passwd', () => {
  it('stores an argon2id hash, never the password, and refuses short passwords and unknown users', async () => {
    secret = 'short';
    expect(await quarry('user', 'passwd', 'ada@acme.test')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/at least 12 characters/),
    });
    secret = 'a long enough password';
    expect(await quarry('user', 'passwd', 'nobody@acme.test')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/No user/),
    });
    expect(await quarry('user', 'passwd', 'ada@acme.test')).toMatchObject({
      code: 0,
      out: 'Password set for ada@acme.test.',
    });
    const { rows } = await sql<{ password_hash: string }>`select password_hash from identity.user_passwords`.execute(
      db,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.password_hash).toMatch(/^\$argon2id\$/);
    expect(rows[0]!.password_hash).not.toContain(secret);
  });
});

describe('quarry token create --scopes', () => {
  it('stores the scopes given, defaults to read and write, and refuses unknown scopes', async () => {
    const readOnly = await quarry(
      'token',
      'create',
      '--org',
      'acme',
      '--user',
      'ada@acme.test',
      '--scopes',
      'quarry:read',
    );
    expect(readOnly).toMatchObject({ code: 0, err: expect.stringMatching(/\(quarry:read\)/) });
    const plain = await quarry('token', 'create', '--org', 'acme', '--user', 'ada@acme.test');
    expect(plain.err).toMatch(/\(quarry:read quarry:write\)/);
    const bad = await quarry('token', 'create', '--org', 'acme', '--user', 'ada@acme.test', '--scopes', 'quarry:root');
    expect(bad).toMatchObject({ code: 1, err: expect.stringMatching(/Unknown scope "quarry:root"/) });
    expect((await quarry('token', 'list')).out).toMatch(/quarry:read\s/);
  });
});

describe('quarry token create --tools', () => {
  it('limits a token to catalogue tools, shows them in token list, and refuses a name not in the catalogue', async () => {
    const limited = await quarry(
      'token',
      'create',
      '--org',
      'acme',
      '--user',
      'ada@acme.test',
      '--name',
      'limited',
      '--tools',
      'get_plan_status,search_sources',
    );
    expect(limited).toMatchObject({ code: 0, err: expect.stringMatching(/only get_plan_status, search_sources\)/) });
    const { rows } = await sql<{ name: string; tools: string[] | null }>`
      select name, tools from identity.personal_access_tokens order by created_at`.execute(db);
    expect(rows.find((r) => r.name === 'limited')!.tools).toEqual(['get_plan_status', 'search_sources']);
    expect(rows.filter((r) => r.name !== 'limited').every((r) => r.tools === null)).toBe(true);
    expect((await quarry('token', 'list')).out).toMatch(/limited\s.*get_plan_status,search_sources\s/);
    expect((await quarry('token', 'list')).out).toMatch(/default\s.*\sall\s/);

    const bad = await quarry(
      'token',
      'create',
      '--org',
      'acme',
      '--user',
      'ada@acme.test',
      '--tools',
      'ping,get_plans',
    );
    expect(bad).toMatchObject({
      code: 1,
      err: expect.stringMatching(/Unknown tool "get_plans": the tools are .*ping/),
    });
  });
});

describe('quarry grants and quarry oauth clients', () => {
  it('lists and revokes grants and clients, deleting what the authorization server keeps for them', async () => {
    const { rows } = await sql<{ org_id: string; user_id: string }>`
      select org_id, user_id from identity.memberships`.execute(db);
    const { org_id, user_id } = rows[0]!;
    await sql`insert into identity.oauth_provider_state (model, id, payload) values
      ('Client', 'client-1', ${JSON.stringify({ client_id: 'client-1', client_name: 'Claude', redirect_uris: ['https://claude.ai/api/mcp/auth_callback'] })}),
      ('Grant', 'grant-1', '{}'), ('RefreshToken', 'rt-1', '{}')`.execute(db);
    await sql`update identity.oauth_provider_state set grant_id = 'grant-1' where id = 'rt-1'`.execute(db);
    await sql`insert into identity.oauth_grants (org_id, user_id, grant_id, client_id, client_name, scopes)
      values (${org_id}, ${user_id}, 'grant-1', 'client-1', 'Claude', '{quarry:read}'),
             (${org_id}, ${user_id}, 'grant-2', 'client-1', 'Claude', '{quarry:read}')`.execute(db);

    expect((await quarry('oauth', 'clients', 'list')).out).toMatch(
      /client-1\s+Claude\s+https:\/\/claude\.ai\/api\/mcp\/auth_callback\s+2/,
    );
    const listed = await quarry('grants', 'list', '--org', 'acme');
    const id = /^([0-9a-f-]{36})\s+acme\s+ada@acme\.test\s+Claude/m.exec(listed.out)![1]!;
    expect(await quarry('grants', 'revoke', 'nope')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/not a grant id/),
    });
    expect(await quarry('grants', 'revoke', '00000000-0000-4000-8000-000000000000')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/No grant/),
    });
    expect(listed.out).toMatch(new RegExp(`${id}\\s.*quarry:read\\s+all\\s`));
    expect(await quarry('grants', 'tools', id, 'ping,list_plans')).toMatchObject({
      code: 0,
      out: `Grant ${id} may call ping, list_plans.`,
    });
    expect((await quarry('grants', 'list')).out).toMatch(new RegExp(`${id}\\s.*quarry:read\\s+ping,list_plans\\s`));
    expect(await quarry('grants', 'tools', id, 'ping,pong')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/Unknown tool "pong"/),
    });
    expect(await quarry('grants', 'tools', id, 'all')).toMatchObject({
      code: 0,
      out: `Grant ${id} may call every tool.`,
    });
    expect(await quarry('grants', 'revoke', id)).toMatchObject({ code: 0, out: `Revoked grant ${id}.` });

    expect(await quarry('oauth', 'clients', 'revoke', 'client-1')).toMatchObject({
      code: 0,
      out: 'Revoked client client-1 and 2 grant(s).',
    });
    const left = await sql<{ id: string }>`select id from identity.oauth_provider_state order by id`.execute(db);
    expect(left.rows).toEqual([]);
    const revoked = await sql<{ n: number }>`
      select count(*)::int as n from identity.oauth_grants where revoked_at is not null`.execute(db);
    expect(revoked.rows[0]!.n).toBe(2);
    expect((await quarry('oauth', 'clients', 'list')).out).toBe('(none)');
    expect(await quarry('oauth', 'clients', 'revoke', 'client-9')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/No client/),
    });
  });
});
