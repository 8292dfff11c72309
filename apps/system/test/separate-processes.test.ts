import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { DEFAULT_PORTS } from '@quarry/config';
import type { EmbeddedPostgres } from '@quarry/db';
import { startTestCluster } from '@quarry/testing';
import {
  freePort,
  groupAlive,
  readmeScript,
  runnableScript,
  SERVICES,
  type Service,
  type ServicePorts,
} from './readme-script.js';

// The Kubernetes topology on one machine, exactly as README.md's "Running one service alone"
// says: its commands (read from the README itself) against a real PostgreSQL of their own —
// `quarry migrate` with the admin URL, then every service as its own Node process — and one
// research session over MCP through the gateway. Only two things differ from a reader's shell:
// the sources run instead of dist/ (no build), and the services listen on free ports.

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const LOADER = pathToFileURL(join(REPO, 'libs/testing/src/register-ts.mjs')).href;
/** Process start-up compiles TypeScript on the fly: seconds each, many more on a loaded 2-core box. */
const START_MS = 180_000;

let cluster: EmbeddedPostgres;
let dataDir: string;
let shell: ChildProcess;
let ports: Record<Service, ServicePorts>;
const output: string[] = [];
/** What a service prints when it cannot start (runService), or the CLI when a command fails. */
const FAILED = /^.*(Invalid configuration|failed to start|^error: ).*$/m;
const printed = () => output.join('');

/**
 * Polls `check` until it holds. Fails with the processes' output when it never does, and at
 * once when a command of the README failed (the shell stops at the first, `set -e`) or a
 * service refused to start.
 */
async function until(check: () => boolean | Promise<boolean>, what: string, ms = START_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await Promise.resolve(check()).catch(() => false))) {
    const failed = shell.exitCode ? `the shell exited with ${shell.exitCode}` : FAILED.exec(printed())?.[0];
    if (failed || Date.now() > deadline)
      throw new Error(
        `not ${what}: ${failed ?? `still not after ${ms / 1000} s`}; the processes printed:\n${printed().slice(-6000)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Each service process of the shell's process group, with the environment it was started with. */
function serviceEnvironments(pgid: number): { service: Service; env: Record<string, string> }[] {
  const found: { service: Service; env: Record<string, string> }[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces): state, ppid, pgrp, ...
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pgid) continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const service = SERVICES.find((s) => cmdline.includes(`services/${s}/src/main.ts`));
      if (!service) continue;
      const env = Object.fromEntries(
        readFileSync(`/proc/${pid}/environ`, 'utf8')
          .split('\0')
          .filter(Boolean)
          .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
      );
      found.push({ service, env });
    } catch {
      // The process ended while being read: not a service of this run.
    }
  }
  return found;
}

beforeAll(async () => {
  // A cluster of its own: `quarry migrate` (re)creates the roles quarry_app and quarry_indexer,
  // which are cluster-wide, so it must not share one with other test files.
  cluster = await startTestCluster();
  dataDir = mkdtempSync(join(tmpdir(), 'quarry-separate-'));
  ports = Object.fromEntries(
    await Promise.all(
      SERVICES.map(async (s) => [
        s,
        { ...('port' in DEFAULT_PORTS[s] ? { port: await freePort() } : {}), metricsPort: await freePort() },
      ]),
    ),
  ) as Record<Service, ServicePorts>;
  const given = {
    DB: `127.0.0.1:${cluster.port}/quarry`,
    DATABASE_ADMIN_URL: Object.assign(new URL(cluster.adminUrl), { pathname: '/quarry' }).toString(),
    QUARRY_DATA_DIR: dataDir,
  };
  const { given: asked, commands } = readmeScript(readFileSync(join(REPO, 'README.md'), 'utf8'));
  expect(asked.sort()).toEqual(Object.keys(given).sort());
  // The given block's values are set as the reader sets them: shell variables, not exported.
  const prelude = Object.entries(given)
    .map(([name, value]) => `${name}='${value}'`)
    .join('\n');
  shell = spawn('bash', ['-c', `${prelude}\n${runnableScript(commands, ports, DEFAULT_PORTS, LOADER)}`], {
    cwd: REPO,
    // Nothing from the outer environment but the basics: no engine URLs, no test database.
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: the services it starts in the background are stopped together
  });
  shell.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
  shell.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
}, 60_000);

afterAll(async () => {
  if (shell?.pid) {
    if (groupAlive(shell.pid)) process.kill(-shell.pid, 'SIGTERM');
    const deadline = Date.now() + 30_000;
    while (groupAlive(shell.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    if (groupAlive(shell.pid)) process.kill(-shell.pid, 'SIGKILL');
  }
  await cluster?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('every service as its own process, as README.md runs them', () => {
  let token: string;

  it(
    'starts: migrate creates the database, each service listens on its ports with /metrics on HOST, a token is printed',
    async () => {
      await until(() => /^qry_[0-9A-Za-z]{43}$/m.test(printed()), 'printing a token');
      token = /^(qry_[0-9A-Za-z]{43})$/m.exec(printed())![1]!;
      expect(printed()).toContain('Created database quarry.');
      for (const service of SERVICES) {
        await until(() => printed().includes(`"msg":"${service} started"`), `${service} started`);
        const metrics = await fetch(`http://127.0.0.1:${ports[service].metricsPort}/metrics`);
        expect({ service, status: metrics.status }).toEqual({ service, status: 200 });
        expect(await metrics.text()).toContain(`process_cpu_seconds_total{service="${service}"}`);
      }
      expect(printed()).not.toMatch(FAILED);
      // The gateway's public port does not expose the metrics.
      expect((await fetch(`http://127.0.0.1:${ports.gateway.port}/metrics`)).status).toBe(404);
      await until(
        async () => (await fetch(`http://127.0.0.1:${ports.gateway.port}/readyz`)).status === 200,
        'the gateway ready',
      );
    },
    START_MS + 30_000,
  );

  it('hands each service only its own credentials: no admin URL, no role password, no other role', () => {
    const found = serviceEnvironments(shell.pid!);
    expect([...new Set(found.map((f) => f.service))].sort()).toEqual([...SERVICES].sort());
    for (const { service, env } of found) {
      const user = env.DATABASE_URL === undefined ? undefined : new URL(env.DATABASE_URL).username;
      expect({
        service,
        adminUrl: env.DATABASE_ADMIN_URL,
        appPassword: env.QUARRY_APP_ROLE_PASSWORD,
        indexerPassword: env.QUARRY_INDEXER_ROLE_PASSWORD,
        user,
        identityKey: env.QUARRY_IDENTITY_KEY !== undefined,
      }).toEqual({
        service,
        adminUrl: undefined,
        appPassword: undefined,
        indexerPassword: undefined,
        user: service === 'indexer' ? 'quarry_indexer' : service === 'search' ? undefined : 'quarry_app',
        identityKey: service !== 'indexer',
      });
    }
  });

  it('runs a research session over MCP through the gateway: plan, step, result, artifact, search, status', async () => {
    expect(token).toBeDefined();
    const client = new Client(
      { name: 'separate-processes-test', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${ports.gateway.port}/mcp`), {
        authProvider: { token: async () => token },
      }),
    );
    const call = async <T = Record<string, unknown>>(name: string, args: Record<string, unknown>): Promise<T> => {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.structuredContent)}`);
      return result.structuredContent as T;
    };
    try {
      const plan = await call<{ planId: string; firstStep: { stepId: string } }>('create_research_plan', {
        name: 'Eskers',
        researchQuestion: 'How do eskers form?',
        steps: [{ stepType: 'search', instructions: 'Find how eskers form.' }],
      });
      const next = await call<{ step: { stepId: string } }>('get_next_step', { planId: plan.planId });
      expect(next).toMatchObject({ status: 'next_step', step: { stepId: plan.firstStep.stepId } });
      await call('submit_step_result', {
        planId: plan.planId,
        stepId: next.step.stepId,
        result: { summary: 'Meltwater tunnels under glaciers.' },
        confidence: 0.8,
      });
      const text = 'Eskers are long ridges of glaciofluvial sand and gravel laid down by meltwater tunnels.';
      const stored = await call<{ id: string }>('store_research', {
        planId: plan.planId,
        artifactType: 'finding',
        title: 'How eskers form',
        content: { finding: text },
        contentText: text,
      });
      expect(stored).toMatchObject({ stored: true });

      // The artifact store's event reaches the indexer process through the outbox, its write
      // to QUARRY_DATA_DIR reaches the search process: found moments later.
      let found: Record<string, unknown>[] = [];
      await until(
        async () => {
          found = (await call<{ results: typeof found }>('search_sources', { query: 'glaciofluvial meltwater' }))
            .results;
          return found.length > 0;
        },
        'finding the stored artifact',
        60_000,
      );
      expect(found[0]).toMatchObject({ sourceId: stored.id, sourceTable: 'research_artifact' });

      expect(await call('get_plan_status', { planId: plan.planId })).toMatchObject({
        planId: plan.planId,
        status: 'completed',
        progress: 100,
      });
    } finally {
      await client.close();
    }
  }, 120_000);

  it('stops every process cleanly on SIGTERM', async () => {
    process.kill(-shell.pid!, 'SIGTERM');
    await until(() => !groupAlive(shell.pid!), 'stopped', 30_000);
    expect(printed()).not.toMatch(/"level":(50|60)/); // nothing logged at error or fatal level
  }, 40_000);
});
