import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMcpCaller, toolCallRequest } from './mcp.js';
import { percentile, startLoad } from './measure.js';
import type { Phase } from './phase.js';
import type { Results } from './report.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Resident memory of one process: PSS when the kernel reports it (shared pages counted once), else RSS. */
function residentKb(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const pss = /^Pss:\s+(\d+) kB/m.exec(rollup);
    if (pss) return Number(pss[1]);
  } catch {
    // not readable (or not Linux): fall through to status
  }
  try {
    const rss = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return rss ? Number(rss[1]) : 0;
  } catch {
    return 0; // the process has exited
  }
}

/** `root` and every process below it, each with its command name. */
function processTree(root: number): { pid: number; comm: string }[] {
  const children = new Map<number, number[]>();
  const comms = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …; comm may contain spaces and parentheses, so split at the last ')'.
      const close = stat.lastIndexOf(')');
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      comms.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close));
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const tree: { pid: number; comm: string }[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    tree.push({ pid, comm: comms.get(pid) ?? '' });
    stack.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** MB held by Quarry's processes and, separately, by PostgreSQL's, under `root`. */
function memoryOf(root: number): { quarry: number; postgres: number } {
  let quarry = 0;
  let postgres = 0;
  for (const { pid, comm } of processTree(root)) {
    const kb = residentKb(pid);
    if (comm === 'postgres') postgres += kb;
    else quarry += kb;
  }
  return { quarry: quarry / 1024, postgres: postgres / 1024 };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * `quarry start` as users run it: the built CLI when the bench runs built (`npm run bench` builds
 * everything first), its sources through the repo's TS loader when the bench runs from source (the
 * smoke tests; a dist left from an older build must not be measured).
 */
function quarryStartCommand(): string[] {
  if (import.meta.url.endsWith('.js')) return [join(REPO_ROOT, 'apps/cli/dist/bin.js'), 'start'];
  return [
    '--conditions=quarry-source',
    '--import',
    pathToFileURL(join(REPO_ROOT, 'libs/testing/src/register-ts.mjs')).href,
    join(REPO_ROOT, 'apps/cli/src/bin.ts'),
    'start',
  ];
}

async function until(
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
  child: ChildProcess,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`quarry start exited with ${child.exitCode} before ${what}`);
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`quarry start: not ${what} after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

/**
 * p6: memory of Quarry as `npm start` runs it — a real `quarry start` child process (every
 * service in one Node process, ADR 0006) on its own embedded PostgreSQL — idle after start-up,
 * and at its peak under concurrent get_plan_status load. PostgreSQL's processes are summed
 * separately, as PSS so its shared buffers count once. Linux only (/proc).
 */
export const memoryPhase: Phase = {
  name: 'memory',
  async run({ system, sizes, progress }) {
    if (!existsSync('/proc/self/stat')) {
      progress('skipped (needs Linux /proc)');
      return {};
    }
    const dataDir = mkdtempSync(join(system.scratchDir, 'quarry-start-'));
    const port = await freePort();
    progress('starting `quarry start` on a fresh data directory');
    const child = spawn(process.execPath, quarryStartCommand(), {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        QUARRY_DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        QUARRY_RATE_LIMIT_PER_MINUTE: '1000000000',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    try {
      const base = `http://127.0.0.1:${port}`;
      await until(async () => (await fetch(`${base}/readyz`)).status === 200, 180_000, 'ready', child);
      const token = readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
      const caller = createMcpCaller(`${base}/mcp`, token);
      let planId: string;
      try {
        planId = (
          await caller.call('create_research_plan', {
            name: 'Memory',
            researchQuestion: 'How much memory?',
            steps: [{ stepType: 'search', instructions: 'Look' }],
          })
        ).planId as string;
        for (let i = 0; i < 20; i++) await caller.call('get_plan_status', { planId });
      } finally {
        caller.close();
      }

      // Idle: settled after start-up and a few calls; the median of a few samples.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const idle: { quarry: number; postgres: number }[] = [];
      for (let i = 0; i < 5; i++) {
        idle.push(memoryOf(child.pid!));
        await new Promise((resolve) => setTimeout(resolve, 500));
      }

      // Load: 32 concurrent clients on get_plan_status; the peak over the run.
      const seconds = Math.max(3, sizes.loadSeconds * 2);
      progress(`${seconds} s of get_plan_status from 32 clients`);
      const peak = { quarry: 0, postgres: 0 };
      const sampler = setInterval(() => {
        const now = memoryOf(child.pid!);
        peak.quarry = Math.max(peak.quarry, now.quarry);
        peak.postgres = Math.max(peak.postgres, now.postgres);
      }, 250);
      try {
        const load = await startLoad({
          url: `${base}/mcp`,
          ...toolCallRequest(token, 'get_plan_status', { planId }),
          connections: 32,
          seconds,
          maxRequests: seconds * 100_000,
        }).done;
        if (load.failures) throw new Error(`memory: ${load.failures} failed calls under load`);
      } finally {
        clearInterval(sampler);
      }
      const results: Results = {
        p6_rss_idle_mb: {
          value: percentile(
            idle.map((m) => m.quarry),
            50,
          ),
          unit: 'MB',
        },
        p6_rss_load_mb: { value: peak.quarry, unit: 'MB' },
        p6_postgres_rss_idle_mb: {
          value: percentile(
            idle.map((m) => m.postgres),
            50,
          ),
          unit: 'MB',
        },
        p6_postgres_rss_load_mb: { value: peak.postgres, unit: 'MB' },
      };
      return results;
    } finally {
      await stop(child);
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
