import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { startTestCluster } from '@quarry/testing';
// @ts-expect-error: plain ESM modules loaded by Jest itself, without type declarations
import globalSetup from '../src/jest-global-setup.mjs';
// @ts-expect-error: see above
import globalTeardown from '../src/jest-global-teardown.mjs';

const holder = globalThis as { __quarryTestCluster?: { adminUrl: string; pid: number } };
let runUrl: string | undefined;
beforeEach(() => {
  runUrl = process.env.QUARRY_TEST_PG_URL;
});
afterEach(() => {
  process.env.QUARRY_TEST_PG_URL = runUrl;
});

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe('the withPostgres global setup and teardown', () => {
  it('start a fresh cluster, announce it in QUARRY_TEST_PG_URL, then stop it', async () => {
    delete process.env.QUARRY_TEST_PG_URL;
    await globalSetup();
    const url = process.env.QUARRY_TEST_PG_URL;
    expect(url).toBe(holder.__quarryTestCluster?.adminUrl);
    expect(url).not.toBe(runUrl);
    expect(await answers(url!)).toBe(true);

    await globalTeardown();
    expect(process.env.QUARRY_TEST_PG_URL).toBeUndefined();
    expect(await answers(url!)).toBe(false);
  });

  it('start nothing when QUARRY_TEST_PG_URL names a server already', async () => {
    process.env.QUARRY_TEST_PG_URL = runUrl;
    await globalSetup();
    expect(holder.__quarryTestCluster).toBeUndefined();
    expect(process.env.QUARRY_TEST_PG_URL).toBe(runUrl);
    await globalTeardown();
    expect(process.env.QUARRY_TEST_PG_URL).toBe(runUrl);
  });
});

describe('startTestCluster', () => {
  it('runs a throwaway cluster in a temp dir that is removed on stop', async () => {
    const cluster = await startTestCluster();
    const client = new pg.Client({ connectionString: cluster.adminUrl });
    await client.connect();
    const { rows } = await client.query<{ dir: string }>('select current_setting($1) as dir', ['data_directory']);
    await client.end();
    const dataDir = join(rows[0]!.dir, '..');
    expect(dataDir).toMatch(/quarry-test-pg-/);
    await cluster.stop();
    await expect(stat(dataDir)).rejects.toThrow(/ENOENT/);
  });
});
