import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DEFAULT_PORTS } from '@quarry/config';
import { createDb, startEmbeddedPostgres, type EmbeddedPostgres } from '@quarry/db';
import { consumerLag, rewindConsumer } from '@quarry/events';
import {
  freePort,
  groupAlive,
  readmeScript,
  runnableScript,
  SERVICES,
  type Service,
  type ServicePorts,
} from '../readme-script.js';

// The Kubernetes topology on one machine, started from README.md's "Running one service alone"
// commands exactly as the separate-process test starts it, with two additions a chaos run
// needs: each service restarts when killed (restartPolicy: Always), and PostgreSQL (embedded,
// its own) can be restarted on the same port.

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
const LOADER = pathToFileURL(join(REPO, 'libs/testing/src/register-ts.mjs')).href;
/** What a service prints when it cannot start, or the CLI when a command fails. */
const FAILED = /^.*(Invalid configuration|failed to start|^error: ).*$/m;

export interface Topology {
  gatewayUrl: string;
  /** The token the README's last command printed. */
  token: string;
  /** The gateway's readiness check answers 200. */
  ready(): Promise<boolean>;
  /** How many times `service` has logged that it started. */
  starts(service: Service): number;
  /** SIGKILL the service's Node process; its supervisor starts it again (unless held). */
  kill(service: Service): void;
  /** Stop PostgreSQL (fast shutdown) and start it again on the same port and data. */
  restartPostgres(): Promise<void>;
  /** Stop the indexer, rewind its position to the outbox's start, start it: every event is delivered again. */
  replayIndexer(): Promise<void>;
  /** Events the indexer has not yet indexed. */
  indexerPending(): Promise<number>;
  /** Everything the processes printed (the last `chars`). */
  printed(chars?: number): string;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms: number,
  failed: () => string | undefined,
) {
  const deadline = Date.now() + ms;
  while (!(await Promise.resolve(check()).catch(() => false))) {
    const why = failed();
    if (why || Date.now() > deadline) throw new Error(`not ${what}: ${why ?? `still not after ${ms / 1000} s`}`);
    await sleep(200);
  }
}

/** The pid of the Node process running `service` in the shell's process group (not its supervising shell). */
function servicePid(pgid: number, service: Service): number | undefined {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pgid) continue;
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (/(^|\/)node$/.test(argv[0]!) && argv.includes(`services/${service}/src/main.ts`)) return Number(pid);
    } catch {
      // The process ended while being read.
    }
  }
  return undefined;
}

export async function startChaosTopology(startMs: number): Promise<Topology> {
  const work = mkdtempSync(join(tmpdir(), 'quarry-chaos-'));
  const pgDir = join(work, 'postgres');
  const holdDir = join(work, 'hold');
  mkdirSync(holdDir);
  const pgOptions = { dataDir: pgDir, persistent: true, detached: false, settings: { max_connections: 300 } };
  let postgres: EmbeddedPostgres = await startEmbeddedPostgres(pgOptions);
  const port = postgres.port;
  const adminUrl = Object.assign(new URL(postgres.adminUrl), { pathname: '/quarry' }).toString();

  const ports = Object.fromEntries(
    await Promise.all(
      SERVICES.map(async (s) => [
        s,
        { ...('port' in DEFAULT_PORTS[s] ? { port: await freePort() } : {}), metricsPort: await freePort() },
      ]),
    ),
  ) as Record<Service, ServicePorts>;
  const given: Record<string, string> = {
    DB: `127.0.0.1:${port}/quarry`,
    DATABASE_ADMIN_URL: adminUrl,
    QUARRY_DATA_DIR: join(work, 'data'),
  };
  const { commands } = readmeScript(readFileSync(join(REPO, 'README.md'), 'utf8'));
  const prelude = Object.entries(given)
    .map(([name, value]) => `${name}='${value}'`)
    .join('\n');
  const shell: ChildProcess = spawn(
    'bash',
    ['-c', `${prelude}\n${runnableScript(commands, ports, DEFAULT_PORTS, LOADER, holdDir)}`],
    {
      cwd: REPO,
      // Nothing from the outer environment but the basics, and a per-token call rate above the
      // default's 1,200 a minute: the load and the check drive one token from several clients.
      env: { PATH: process.env.PATH, HOME: process.env.HOME, QUARRY_RATE_LIMIT_PER_MINUTE: '1000000' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: the services are stopped together
    },
  );
  const output: string[] = [];
  let length = 0;
  const keep = (d: Buffer) => {
    output.push(d.toString());
    length += d.length;
    // Keep memory bounded on long runs: the start counts are read from the log as it comes.
    while (length > 4_000_000 && output.length > 1) length -= output.shift()!.length;
  };
  const started = new Map<Service, number>(SERVICES.map((s) => [s, 0]));
  let tail = '';
  const count = (d: Buffer) => {
    const text = tail + d.toString();
    for (const s of SERVICES) started.set(s, started.get(s)! + text.split(`"msg":"${s} started"`).length - 1);
    // A message split across chunks is counted once: keep only what cannot hold a whole one.
    tail = text.slice(-40).replace(/^[\s\S]*"msg":"[a-z-]+ started"/, '');
  };
  shell.stdout!.on('data', (d: Buffer) => (keep(d), count(d)));
  shell.stderr!.on('data', (d: Buffer) => (keep(d), count(d)));
  const printed = (chars = 6000) => output.join('').slice(-chars);
  const failed = () => (shell.exitCode ? `the shell exited with ${shell.exitCode}` : FAILED.exec(output.join(''))?.[0]);

  const admin = createDb<unknown>({ connectionString: adminUrl, applicationName: 'quarry-chaos', max: 2 });
  const gatewayUrl = `http://127.0.0.1:${ports.gateway.port}`;
  const ready = async () => (await fetch(`${gatewayUrl}/readyz`).catch(() => undefined))?.status === 200;
  const stop = async () => {
    if (shell.pid && groupAlive(shell.pid)) {
      process.kill(-shell.pid, 'SIGTERM');
      const deadline = Date.now() + 30_000;
      while (groupAlive(shell.pid) && Date.now() < deadline) await sleep(200);
      if (groupAlive(shell.pid)) process.kill(-shell.pid, 'SIGKILL');
    }
    await admin.destroy();
    await postgres.stop();
    rmSync(work, { recursive: true, force: true });
  };

  const kill = (service: Service) => {
    const pid = servicePid(shell.pid!, service);
    if (pid === undefined) throw new Error(`no ${service} process to kill`);
    process.kill(pid, 'SIGKILL');
  };

  try {
    const token = /^(qry_[0-9A-Za-z]{43})$/m;
    await until(() => token.test(output.join('')), 'printing a token', startMs, failed);
    for (const s of SERVICES) await until(() => started.get(s)! > 0, `${s} started`, startMs, failed);
    await until(ready, 'the gateway ready', startMs, failed);
    return {
      gatewayUrl,
      token: token.exec(output.join(''))![1]!,
      ready,
      starts: (service) => started.get(service)!,
      kill,
      async restartPostgres() {
        await postgres.stop();
        postgres = await startEmbeddedPostgres({ ...pgOptions, port });
      },
      async replayIndexer() {
        const hold = join(holdDir, 'indexer');
        writeFileSync(hold, '');
        try {
          const before = started.get('indexer')!;
          kill('indexer');
          // Its advisory lock goes with its connections, which PostgreSQL notices at once on loopback.
          await until(
            () => rewindConsumer(admin, 'indexer').then(() => true),
            'the indexer rewound',
            30_000,
            () => undefined,
          );
          rmSync(hold);
          await until(
            () => started.get('indexer')! > before,
            'the indexer started again',
            startMs,
            () => undefined,
          );
        } finally {
          rmSync(hold, { force: true });
        }
      },
      indexerPending: async () => (await consumerLag(admin, 'indexer')).pending,
      printed,
      stop,
    };
  } catch (error) {
    const message = `${(error as Error).message}; the processes printed:\n${printed()}`;
    await stop();
    throw new Error(message);
  }
}
