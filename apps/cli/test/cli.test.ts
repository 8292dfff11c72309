import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { runCli } from '@quarry/cli';
import { gatewaySchemas } from '@quarry/gateway';
import { backendSchemas } from '@quarry/system';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { startSystemOn } from './system-support.js';

/** Every service's migrations: a fresh database gets all of them. */
const MIGRATIONS = [...gatewaySchemas, ...backendSchemas].reduce((n, s) => n + Object.keys(s.migrations).length, 0);

const ROLE = 'cli_test_app';
const PASSWORD = 'cli-test-password-0123456789';
const INDEXER_ROLE = 'cli_test_indexer';
const INDEXER_PASSWORD = 'cli-test-indexer-0123456789';
let database: TestDatabase;
let dataDir: string;
let env: Record<string, string>;

async function quarry(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function startGateway() {
  return startSystemOn({
    adminUrl: database.adminUrl,
    dataDir,
    app: { role: ROLE, password: PASSWORD },
    indexer: { role: INDEXER_ROLE, password: INDEXER_PASSWORD },
  });
}

async function callTool(url: string, token: string, name: string, args: Record<string, unknown> = {}) {
  const client = new Client(
    { name: 'cli-test', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: { token: async () => token } }));
  try {
    return await client.callTool({ name, arguments: args });
  } finally {
    await client.close();
  }
}

const ping = (url: string, token: string) => callTool(url, token, 'ping');

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [] });
  dataDir = mkdtempSync(join(tmpdir(), 'quarry-cli-'));
  env = {
    DATABASE_URL: database.adminUrl,
    QUARRY_APP_ROLE: ROLE,
    QUARRY_APP_ROLE_PASSWORD: PASSWORD,
    QUARRY_INDEXER_ROLE: INDEXER_ROLE,
    QUARRY_INDEXER_ROLE_PASSWORD: INDEXER_PASSWORD,
    QUARRY_DATA_DIR: dataDir,
  };
});
afterAll(async () => {
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('quarry CLI', () => {
  it('migrates once, then reports the database up to date', async () => {
    const first = await quarry('migrate');
    expect(first).toMatchObject({
      code: 0,
      out: expect.stringMatching(
        new RegExp(`Applied ${MIGRATIONS} migration\\(s\\)[\\s\\S]*identity/2026_11_21_2200_create_identity`),
      ),
    });
    expect(first.out).toMatch(/artifact\/2026_11_22_0200_create_extraction_results/);
    expect(first.out).toMatch(/plan\/2026_11_22_0400_count_stalled_plans/);
    expect(await quarry('migrate')).toMatchObject({ code: 0, out: 'Database is up to date.' });
  });

  it('refuses to migrate a configured database without the passwords of roles it must create', async () => {
    const saved = env;
    // Roles are server-wide and the test server's default ones exist: these two do not.
    const fresh = {
      QUARRY_APP_ROLE: `cli_new_app_${process.pid}`,
      QUARRY_INDEXER_ROLE: `cli_new_indexer_${process.pid}`,
    };
    env = { DATABASE_URL: database.adminUrl, QUARRY_DATA_DIR: dataDir, ...fresh };
    expect(await quarry('migrate')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/QUARRY_APP_ROLE_PASSWORD must be set/),
    });
    env = { ...saved, ...fresh, QUARRY_INDEXER_ROLE_PASSWORD: '' };
    expect(await quarry('migrate')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/QUARRY_INDEXER_ROLE_PASSWORD must be set/),
    });
    env = saved;
  });

  it('round-trips: org, user, token; the token works; revoked, the very next call is 401', async () => {
    expect(await quarry('org', 'create', 'acme', '--name', 'Acme Research')).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^Created organization acme \(/),
    });
    expect(await quarry('user', 'add', 'Ada@Acme.test', '--org', 'acme', '--name', 'Ada Lovelace')).toMatchObject({
      code: 0,
      out: 'Added ada@acme.test (Ada Lovelace) to acme.',
    });
    const created = await quarry(
      'token',
      'create',
      '--org',
      'acme',
      '--user',
      'ada@acme.test',
      '--name',
      'laptop',
      '--expires-in',
      '30d',
    );
    expect(created.code).toBe(0);
    const token = created.out.trim();
    expect(token).toMatch(/^qry_[0-9A-Za-z]{43}$/);
    const tokenId = /Token ([0-9a-f-]{36})/.exec(created.err)![1]!;
    expect(created.err).toMatch(/expires 20\d\d-/);

    const listed = await quarry('token', 'list', '--org', 'acme');
    expect(listed.out).toContain(tokenId);
    expect(listed.out).toContain(token.slice(0, 8));
    expect(listed.out).not.toContain(token);

    const gateway = await startGateway();
    try {
      const answer = await ping(gateway.url, token);
      expect(answer.structuredContent).toMatchObject({
        message: 'Connected to Quarry as Ada Lovelace (ada@acme.test).',
        orgSlug: 'acme',
      });

      // Output preferences set through the CLI reach the client when a plan completes.
      expect(
        await quarry('prefs', 'set', '--org', 'acme', '--media-type', 'markdown', '--instructions', 'Use H2 headings.'),
      ).toMatchObject({
        code: 0,
        out: 'Output preferences of acme: markdown — Use H2 headings..',
      });
      expect((await quarry('prefs', 'show', '--org', 'acme')).out).toBe('markdown — Use H2 headings.');
      const plan = (
        await callTool(gateway.url, token, 'create_research_plan', {
          name: 'p',
          researchQuestion: 'q',
          steps: [{ stepType: 'custom', instructions: 'x' }],
        })
      ).structuredContent as { planId: string; firstStep: { stepId: string } };
      await callTool(gateway.url, token, 'submit_step_result', {
        planId: plan.planId,
        stepId: plan.firstStep.stepId,
        result: { ok: true },
      });
      expect(
        (await callTool(gateway.url, token, 'get_next_step', { planId: plan.planId })).structuredContent,
      ).toMatchObject({
        status: 'plan_complete',
        outputMediaType: 'markdown',
        outputFormattingInstructions: 'Use H2 headings.',
      });

      expect(await quarry('token', 'revoke', tokenId)).toMatchObject({ code: 0, out: `Revoked token ${tokenId}.` });
      const response = await fetch(gateway.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      expect(response.status).toBe(401);
      await expect(ping(gateway.url, token)).rejects.toThrow();
    } finally {
      await gateway.close();
    }
    expect((await quarry('token', 'list')).out).toMatch(
      new RegExp(`${tokenId}.*20\\d\\d-\\d\\d-\\d\\dT[^ ]+Z\\s*$`, 'm'),
    );
  });

  it('explains operator mistakes and exits non-zero', async () => {
    expect(await quarry('org', 'create', 'acme')).toMatchObject({
      code: 1,
      err: 'error: Organization "acme" already exists.',
    });
    expect(await quarry('org', 'create', 'Not A Slug')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/Invalid slug/),
    });
    expect(await quarry('user', 'add', 'x@y.test', '--org', 'nope')).toMatchObject({
      code: 1,
      err: 'error: No organization with slug "nope".',
    });
    expect(await quarry('user', 'add', 'not-an-email', '--org', 'acme')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/Invalid email/),
    });
    expect(await quarry('token', 'create', '--org', 'acme', '--user', 'stranger@acme.test')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/not a member of "acme"/),
    });
    expect(
      await quarry('token', 'create', '--org', 'acme', '--user', 'ada@acme.test', '--expires-in', 'soon'),
    ).toMatchObject({ code: 1, err: expect.stringMatching(/"soon" is not a duration/) });
    expect(await quarry('token', 'revoke', 'abc')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/not a token id/),
    });
    expect(await quarry('token', 'revoke', '00000000-0000-4000-8000-000000000000')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/No token with id/),
    });
    expect((await quarry('token', 'create', '--org', 'acme')).code).toBe(1);
    expect((await quarry('frobnicate')).code).toBe(1);
    expect(await quarry('prefs', 'set', '--org', 'acme', '--media-type', 'pdf')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/Invalid media type "pdf"/),
    });
    expect(await quarry('prefs', 'set', '--org', 'acme')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/Nothing to set/),
    });
    expect(await quarry('prefs', 'show', '--org', 'nope')).toMatchObject({
      code: 1,
      err: 'error: No organization with slug "nope".',
    });
  });

  it('reindex: refuses under a running indexer, then rebuilds the indexes from the stored sources', async () => {
    await quarry('user', 'add', 'bob@acme.test', '--org', 'acme', '--name', 'Bob');
    const token = (await quarry('token', 'create', '--org', 'acme', '--user', 'bob@acme.test')).out.trim();
    const search = async (url: string, query: string) =>
      (
        (await callTool(url, token, 'search_sources', { query })).structuredContent as {
          results: { sourceId: string }[];
        }
      ).results.map((r) => r.sourceId); // best first
    const until = async (check: () => Promise<boolean>) => {
      for (let i = 0; i < 100 && !(await check()); i++) await new Promise((r) => setTimeout(r, 100));
    };

    let gateway = await startGateway();
    let stored: string[];
    try {
      stored = await Promise.all(
        ['Ice cores record past climate.', 'Ice sheets lose mass at the margins.'].map(
          async (contentText, i) =>
            (
              (
                await callTool(gateway.url, token, 'store_research', {
                  artifactType: 'finding',
                  title: `Ice ${i}`,
                  content: {},
                  contentText,
                })
              ).structuredContent as { id: string }
            ).id,
        ),
      );
      await until(async () => (await search(gateway.url, 'ice')).length === 2);
      expect((await search(gateway.url, 'ice')).sort()).toEqual([...stored].sort());
      expect(await quarry('reindex')).toMatchObject({
        code: 1,
        err: expect.stringMatching(/indexer is running.*stop it/),
      });
    } finally {
      await gateway.close();
    }

    const rebuilt = await quarry('reindex');
    expect(rebuilt).toMatchObject({
      code: 0,
      out: expect.stringMatching(
        /Reindexing 2 stored source\(s\) of \d+ org\(s\)[\s\S]*Reindexed 2 source\(s\) \(\d+ chunk\(s\)\) in [\d.]+ s with embedder local-/,
      ),
    });

    gateway = await startGateway();
    try {
      expect((await search(gateway.url, 'ice')).sort()).toEqual([...stored].sort());
      expect((await search(gateway.url, 'margins mass'))[0]).toBe(stored[1]);
    } finally {
      await gateway.close();
    }
  });
});
