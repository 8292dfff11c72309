import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { runCli } from '@quarry/cli';
import { gatewaySchemas } from '@quarry/gateway';
import { backendSchemas } from '@quarry/system';
import { testPostgresUrl } from '@quarry/testing';

/** Every service's migrations: a fresh database gets all of them. */
const MIGRATIONS = [...gatewaySchemas, ...backendSchemas].reduce((n, s) => n + Object.keys(s.migrations).length, 0);

// The operator's path against a PostgreSQL of their own (DATABASE_ADMIN_URL): `quarry migrate`
// creates the database it names, needs both role passwords, and no command touches the data
// directory, which only the embedded PostgreSQL and indexes use.

const scratch = mkdtempSync(join(tmpdir(), 'quarry-cli-external-'));
/** Where a data directory would go; nothing may create it. */
const dataDir = join(scratch, 'never-created');
const database = `quarry_cli_external_${process.pid}`;
const adminUrl = Object.assign(new URL(testPostgresUrl()), { pathname: `/${database}` }).toString();
const env = {
  DATABASE_ADMIN_URL: adminUrl,
  QUARRY_APP_ROLE: 'cli_external_app',
  QUARRY_APP_ROLE_PASSWORD: 'cli-external-app-0123456789',
  QUARRY_INDEXER_ROLE: 'cli_external_indexer',
  QUARRY_INDEXER_ROLE_PASSWORD: 'cli-external-indexer-0123456789',
  QUARRY_DATA_DIR: dataDir,
};

async function quarry(environment: Record<string, string>, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env: environment });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function onCluster(sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: testPostgresUrl() });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  await onCluster(`drop database if exists ${database} with (force)`);
  rmSync(scratch, { recursive: true, force: true });
});

describe('quarry against DATABASE_ADMIN_URL', () => {
  it('says a missing database is made by `quarry migrate`', async () => {
    const result = await quarry(env, 'org', 'create', 'acme');
    expect(result.code).toBe(1);
    expect(result.err).toBe(
      `error: database "${database}" does not exist: run \`quarry migrate\` first (it creates the database).`,
    );
  });

  it('refuses to migrate without both role passwords, naming each, before creating anything', async () => {
    const { QUARRY_APP_ROLE_PASSWORD: _app, QUARRY_INDEXER_ROLE_PASSWORD: _indexer, ...withoutPasswords } = env;
    const result = await quarry(withoutPasswords, 'migrate');
    expect(result.code).toBe(1);
    expect(result.err).toContain(
      'QUARRY_APP_ROLE_PASSWORD must be set: the password of cli_external_app, the role every request-serving service connects as',
    );
    expect(result.err).toContain(
      'QUARRY_INDEXER_ROLE_PASSWORD must be set: the password of cli_external_indexer, the role the indexer connects as',
    );
    expect((await onCluster(`select 1 from pg_database where datname = '${database}'`)).rowCount).toBe(0);
  });

  it('migrate creates the database it names, then migrates it; every command leaves the data directory alone', async () => {
    const first = await quarry(env, 'migrate');
    expect(first).toMatchObject({ code: 0 });
    expect(first.out).toMatch(new RegExp(`^Created database ${database}\\.\\nApplied ${MIGRATIONS} migration\\(s\\)`));
    expect(await quarry(env, 'migrate')).toMatchObject({ code: 0, out: 'Database is up to date.' });
    expect(await quarry(env, 'org', 'create', 'acme')).toMatchObject({ code: 0 });
    expect((await quarry(env, 'token', 'list')).code).toBe(0);
    expect(existsSync(dataDir)).toBe(false);
  });

  it("migrate again (an upgrade) keeps the roles' passwords; --rotate-role-passwords sets them and says what to restart", async () => {
    const connects = async (role: string, password: string) => {
      const url = Object.assign(new URL(adminUrl), { username: role, password }).toString();
      const client = new pg.Client({ connectionString: url });
      try {
        await client.connect();
        await client.query('select 1');
        return true;
      } catch {
        return false;
      } finally {
        await client.end().catch(() => undefined);
      }
    };
    const renewed = {
      ...env,
      QUARRY_APP_ROLE_PASSWORD: 'cli-external-app-renewed-0123',
      QUARRY_INDEXER_ROLE_PASSWORD: 'cli-external-indexer-renewed-0123',
    };
    // The README's block run again generates new passwords: the running services' ones still work.
    expect(await quarry(renewed, 'migrate')).toMatchObject({ code: 0, out: 'Database is up to date.' });
    expect(await connects(env.QUARRY_APP_ROLE, env.QUARRY_APP_ROLE_PASSWORD)).toBe(true);
    expect(await connects(env.QUARRY_INDEXER_ROLE, env.QUARRY_INDEXER_ROLE_PASSWORD)).toBe(true);
    expect(await connects(env.QUARRY_APP_ROLE, renewed.QUARRY_APP_ROLE_PASSWORD)).toBe(false);

    // Nothing to rotate: an upgrade needs no role password at all, and the services' ones still work.
    const { QUARRY_APP_ROLE_PASSWORD: _app, QUARRY_INDEXER_ROLE_PASSWORD: _indexer, ...withoutPasswords } = env;
    expect(await quarry(withoutPasswords, 'migrate')).toMatchObject({ code: 0, out: 'Database is up to date.' });
    expect(await connects(env.QUARRY_APP_ROLE, env.QUARRY_APP_ROLE_PASSWORD)).toBe(true);
    const unrotated = await quarry(withoutPasswords, 'migrate', '--rotate-role-passwords');
    expect(unrotated.code).toBe(1);
    expect(unrotated.err).toContain(
      'QUARRY_APP_ROLE_PASSWORD must be set: the password of cli_external_app, the role every request-serving service connects as',
    );
    expect(unrotated.err).toContain('--rotate-role-passwords sets these passwords on both roles');

    const rotated = await quarry(renewed, 'migrate', '--rotate-role-passwords');
    expect(rotated.code).toBe(0);
    expect(rotated.out).toContain(
      'Restart, with the new password in DATABASE_URL, the gateway, plan-engine, artifact-store and extraction (cli_external_app) and the indexer (cli_external_indexer)',
    );
    expect(await connects(env.QUARRY_APP_ROLE, renewed.QUARRY_APP_ROLE_PASSWORD)).toBe(true);
    expect(await connects(env.QUARRY_INDEXER_ROLE, renewed.QUARRY_INDEXER_ROLE_PASSWORD)).toBe(true);
    expect(await connects(env.QUARRY_APP_ROLE, env.QUARRY_APP_ROLE_PASSWORD)).toBe(false);
  });
});
