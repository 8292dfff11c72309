import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { runCli } from '@quarry/cli';
import { appUrlFrom, createDb, type AnyDb } from '@quarry/db';
import { startSystem, type RunningSystem } from '@quarry/system';
import { createLogger } from '@quarry/telemetry';
import { createTestDatabase, serviceTransportEnv, type TestDatabase } from '@quarry/testing';

// A real Quarry for the reindex and import tests: a throwaway database migrated by `quarry
// migrate`, the CLI run in process, and the whole system (every service and the gateway) started
// and stopped around what each test does, so `quarry reindex` can run while nothing indexes.

const ROLE = 'cli_sys_app';
const PASSWORD = 'cli-sys-test-password-0123456789';
const INDEXER_ROLE = 'cli_sys_indexer';
const INDEXER_PASSWORD = 'cli-sys-indexer-0123456789';

export interface TestSystem {
  database: TestDatabase;
  /** The admin connection (bypasses nothing the tests do not mean to). */
  admin: AnyDb;
  dataDir: string;
  env: Record<string, string>;
}

export const system = {} as TestSystem;

/** Every system started here: stopped (again, close() is idempotent) before its database and data directory go. */
const started = new Set<RunningSystem>();

/** Set up the calling test file's database, data directory and an org `acme` with a member's token. */
export function useTestSystem(): { token: () => string } {
  let token = '';
  beforeAll(async () => {
    system.database = await createTestDatabase({ schemas: [] });
    system.admin = createDb({ connectionString: system.database.adminUrl, applicationName: 'cli-test', max: 2 });
    system.dataDir = mkdtempSync(join(tmpdir(), 'quarry-cli-sys-'));
    system.env = {
      DATABASE_URL: system.database.adminUrl,
      QUARRY_APP_ROLE: ROLE,
      QUARRY_APP_ROLE_PASSWORD: PASSWORD,
      QUARRY_INDEXER_ROLE: INDEXER_ROLE,
      QUARRY_INDEXER_ROLE_PASSWORD: INDEXER_PASSWORD,
      QUARRY_DATA_DIR: system.dataDir,
    };
    for (const argv of [['migrate'], ['org', 'create', 'acme'], ['user', 'add', 'ann@acme.test', '--org', 'acme']]) {
      const run = await quarry(...argv);
      if (run.code !== 0) throw new Error(`quarry ${argv.join(' ')}: ${run.err}`);
    }
    token = (await quarry('token', 'create', '--org', 'acme', '--user', 'ann@acme.test')).out.trim();
  });
  afterAll(async () => {
    // Hooks run in the order they were declared, so this runs before the test file's own: a
    // system it still runs (its indexer writing under the data directory) is stopped first.
    for (const running of started) await running.close();
    await system.admin?.destroy();
    await system.database?.drop();
    if (system.dataDir) rmSync(system.dataDir, { recursive: true, force: true });
  });
  return { token: () => token };
}

/** Run the CLI in process; `extraEnv` adds to the system's environment. */
export async function quarry(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  return quarryWith({}, ...argv);
}

export async function quarryWith(
  extraEnv: Record<string, string>,
  ...argv: string[]
): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    env: { ...system.env, ...extraEnv },
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Every service and the gateway on loopback ports (what `quarry start` runs), with the indexer consuming. */
export async function startTestSystem(): Promise<RunningSystem> {
  return startSystemOn({
    adminUrl: system.database.adminUrl,
    dataDir: system.dataDir,
    app: { role: ROLE, password: PASSWORD },
    indexer: { role: INDEXER_ROLE, password: INDEXER_PASSWORD },
  });
}

/** The same on a database migrated elsewhere, with the roles it was migrated with. */
export async function startSystemOn(on: {
  adminUrl: string;
  dataDir: string;
  app: { role: string; password: string };
  indexer: { role: string; password: string };
}): Promise<RunningSystem> {
  const running = await startSystem({
    databaseUrl: appUrlFrom(on.adminUrl, on.app.role, on.app.password),
    indexerDatabaseUrl: appUrlFrom(on.adminUrl, on.indexer.role, on.indexer.password),
    identityKey: 'k'.repeat(48),
    dataDir: on.dataDir,
    env: { HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', ...serviceTransportEnv() },
    logger: createLogger({ service: 'cli-sys-test', level: 'silent' }),
    closeGraceMs: 1000,
  });
  started.add(running);
  return running;
}

/** One tool call with the official MCP client: its whole result (content items too); a tool error throws. */
export async function toolResult(url: string, token: string, name: string, args: Record<string, unknown> = {}) {
  const client = new Client(
    { name: 'cli-test', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: { token: async () => token } }));
  try {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
    return result;
  } finally {
    await client.close();
  }
}

/** One tool call with the official MCP client; the structured result (throws on a tool error). */
export async function callTool<T = Record<string, unknown>>(
  url: string,
  token: string,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  return (await toolResult(url, token, name, args)).structuredContent as T;
}

export interface Hit {
  sourceId: string;
  title: string;
  tags?: string[];
  planId?: string;
  createdAt?: string;
}

export async function search(url: string, token: string, query: string, extra: Record<string, unknown> = {}) {
  return (await callTool<{ results: Hit[] }>(url, token, 'search_sources', { query, ...extra })).results;
}

/** Poll until `check` holds (at most `ms`). */
export async function until(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}
