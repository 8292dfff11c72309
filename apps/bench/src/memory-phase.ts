import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMcpCaller, toolCallRequest } from './mcp.js';
import { percentile, startLoad } from './measure.js';
import type { Phase } from './phase.js';
import { memoryOf, peakMemoryDuring } from './process-memory.js';
import { BATCH_WRITERS } from './content-loads.js';
import { syntheticCorpus, textDocs } from './corpus.js';
import { loadCranfield } from './cranfield.js';
import { indexedMemory } from './indexed-memory.js';
import type { Results } from './report.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

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
  async run({ system, sizes, progress, cranfieldDir }) {
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
        // What `npm start` and the launcher give `quarry start` (bin/quarry.js); this spawns the CLI directly.
        MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
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
      const { peak } = await peakMemoryDuring(child.pid!, async () => {
        const load = await startLoad({
          url: `${base}/mcp`,
          ...toolCallRequest(token, 'get_plan_status', { planId }),
          connections: 32,
          seconds,
          maxRequests: seconds * 100_000,
        }).done;
        if (load.failures) throw new Error(`memory: ${load.failures} failed calls under load`);
      });
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

      // Indexed: the same process once it holds the corpus the memory target is set at.
      const cranfield = loadCranfield(cranfieldDir);
      const data = 'data' in cranfield ? cranfield.data : syntheticCorpus();
      const writer = createMcpCaller(`${base}/mcp`, token, BATCH_WRITERS);
      try {
        const indexed = await indexedMemory({
          caller: writer,
          root: child.pid!,
          chunks: sizes.memoryChunks,
          docs: textDocs(data.docs),
          queries: data.queries,
          progress,
        });
        return { ...results, ...indexed };
      } finally {
        writer.close();
      }
    } finally {
      await stop(child);
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
