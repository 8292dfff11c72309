import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCli } from '@quarry/cli';
import { createDb, type Kysely, sql } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';

// `quarry quota set|show` over a real migrated database: each quota is written to the table of
// the service that enforces it, for that org only; `default` clears the org's own; show reads
// each limit (the org's own, else the default this environment gives) beside its use.

let database: TestDatabase;
let dataDir: string;
let env: Record<string, string>;
let db: Kysely<unknown>;

async function quarry(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [] });
  dataDir = mkdtempSync(join(tmpdir(), 'quarry-cli-quota-'));
  env = {
    DATABASE_URL: database.adminUrl,
    QUARRY_APP_ROLE: 'cli_quota_app',
    QUARRY_APP_ROLE_PASSWORD: 'cli-quota-app-0123456789',
    QUARRY_INDEXER_ROLE: 'cli_quota_indexer',
    QUARRY_INDEXER_ROLE_PASSWORD: 'cli-quota-indexer-0123456789',
    QUARRY_DATA_DIR: dataDir,
    QUOTA_STORAGE_BYTES: '1000000',
  };
  expect((await quarry('migrate')).code).toBe(0);
  await quarry('org', 'create', 'acme');
  await quarry('org', 'create', 'globex');
  db = createDb<unknown>({ connectionString: database.adminUrl, max: 1 });
}, 120_000);
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const orgId = async (slug: string) =>
  (await sql<{ id: string }>`select id from identity.organizations where slug = ${slug}`.execute(db)).rows[0]!.id;

describe('quarry quota', () => {
  it("writes each quota to its owner's table, for that org only", async () => {
    const set = await quarry(
      'quota',
      'set',
      '--org',
      'acme',
      '--artifacts',
      '500',
      '--calls-per-minute',
      'read=600,write=60',
      '--model-tokens-per-day',
      '200000',
    );
    expect(set).toMatchObject({ code: 0 });
    expect(set.out).toMatch(
      /^Set calls_per_minute\.read, calls_per_minute\.write, artifacts, model_tokens_per_day for acme\./,
    );
    const acme = await orgId('acme');
    expect((await sql`select org_id, storage_bytes, artifacts from artifact.org_quotas`.execute(db)).rows).toEqual([
      { org_id: acme, storage_bytes: null, artifacts: '500' },
    ]);
    expect(
      (
        await sql`select org_id, tool_class, calls_per_minute from gateway.org_call_quotas order by tool_class`.execute(
          db,
        )
      ).rows,
    ).toEqual([
      { org_id: acme, tool_class: 'read', calls_per_minute: 600 },
      { org_id: acme, tool_class: 'write', calls_per_minute: 60 },
    ]);
    expect(
      (await sql`select org_id, extractions_per_day, model_tokens_per_day from extraction.org_quotas`.execute(db)).rows,
    ).toEqual([{ org_id: acme, extractions_per_day: null, model_tokens_per_day: '200000' }]);
  });

  it("shows the org's own limits, the environment's defaults and what is used", async () => {
    const shown = await quarry('quota', 'show', '--org', 'acme');
    expect(shown.code).toBe(0);
    const line = (quota: string) =>
      shown.out
        .split('\n')
        .find((l) => l.startsWith(`${quota} `))!
        .split(/\s{2,}/);
    expect(line('artifacts').slice(0, 4)).toEqual(['artifacts', '500', 'org', '0']);
    expect(line('storage_bytes').slice(0, 4)).toEqual(['storage_bytes', '1000000', 'default', '0']);
    expect(line('calls_per_minute.write').slice(0, 4)).toEqual(['calls_per_minute.write', '60', 'org', '0']);
    expect(line('calls_per_minute.search').slice(0, 3)).toEqual(['calls_per_minute.search', 'none', 'none']);
    expect(line('model_tokens_per_day')).toContain(
      new Date(Date.parse(new Date().toISOString().slice(0, 10)) + 86_400_000).toISOString(),
    );
    const other = await quarry('quota', 'show', '--org', 'globex');
    expect(other.out).toMatch(/^artifacts +none +none/m);
  });

  it('goes back to the default with "default", and refuses what is not a limit', async () => {
    const cleared = await quarry(
      'quota',
      'set',
      '--org',
      'acme',
      '--artifacts',
      'default',
      '--calls-per-minute',
      'write=default',
    );
    expect(cleared).toMatchObject({ code: 0, err: '' });
    expect((await sql`select artifacts from artifact.org_quotas`.execute(db)).rows).toEqual([{ artifacts: null }]);
    expect((await sql`select tool_class from gateway.org_call_quotas`.execute(db)).rows).toEqual([
      { tool_class: 'read' },
    ]);
    const bad = await quarry('quota', 'set', '--org', 'acme', '--artifacts', '-1');
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/whole number/);
    const unknown = await quarry('quota', 'set', '--org', 'nobody', '--artifacts', '1');
    expect(unknown.code).not.toBe(0);
    expect(unknown.err).toMatch(/No organization "nobody"/);
  });
});
