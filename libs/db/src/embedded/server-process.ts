import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { open, readFile, realpath, rename, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { FILES, SUPERUSER, type OsUser } from './data-directory.js';

// The embedded server's process: starting the postmaster and waiting until it is ready, shutting
// it down, choosing its port, and dealing with what an earlier run left behind.

const MAX_LOG_BYTES = 5 * 1024 * 1024;

/** The first lines of `postmaster.pid`, which PostgreSQL keeps while it runs (see pidfile.h). */
interface PidFile {
  readonly pid: number;
  readonly port: number | undefined;
  readonly status: string | undefined;
}

export async function readPidFile(pgdata: string): Promise<PidFile | undefined> {
  let text: string;
  try {
    text = await readFile(join(pgdata, 'postmaster.pid'), 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  const pid = Number.parseInt(lines[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  const port = Number.parseInt(lines[3] ?? '', 10);
  return { pid, port: Number.isInteger(port) ? port : undefined, status: lines[7]?.trim() || undefined };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether `pid` runs a `postgres` binary: true/false, or undefined when the OS cannot tell us. */
async function isPostgresProcess(pid: number): Promise<boolean | undefined> {
  try {
    return /postgres/.test(await readFile(`/proc/${pid}/comm`, 'utf8')); // Linux
  } catch {
    // not Linux (or the process is gone): ask ps
  }
  try {
    return /postgres/.test(execFileSync('ps', ['-o', 'comm=', '-p', String(pid)], { encoding: 'utf8', stdio: 'pipe' }));
  } catch {
    return undefined;
  }
}

/**
 * A `postmaster.pid` survives a crash. PostgreSQL itself ignores one whose process is gone
 * (after checking no old backend still holds shared memory), so that case needs nothing. We
 * handle the two it cannot: the pid now belongs to an unrelated process (common after a
 * container or machine restart), and the old server is still running because the Node process
 * that started it was killed.
 */
export async function recoverFromEarlierRun(dataDir: string, pgdata: string, password: string): Promise<void> {
  const lock = await readPidFile(pgdata);
  if (!lock || !isAlive(lock.pid)) return;
  if ((await isPostgresProcess(lock.pid)) === false) {
    await rm(join(pgdata, 'postmaster.pid'), { force: true });
    return;
  }
  const owner = Number.parseInt(await readFile(join(dataDir, FILES.owner), 'utf8').catch(() => ''), 10);
  if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
    throw new Error(
      `PostgreSQL (pid ${lock.pid}) for ${dataDir} is already running, started by process ${owner}. ` +
        'Stop that process first, or connect to the running server (findRunningEmbeddedPostgres).',
    );
  }
  if (!lock.port || !(await servesDataDir(lock.port, password, pgdata))) {
    throw new Error(
      `PostgreSQL (pid ${lock.pid}) still holds ${pgdata} but does not answer; stop it (kill -INT ${lock.pid}) and retry.`,
    );
  }
  // An orphan of a killed run: shut it down cleanly and start our own.
  process.kill(lock.pid, 'SIGINT');
  if (!(await waitUntil(() => !isAlive(lock.pid), 30_000))) {
    throw new Error(`PostgreSQL (pid ${lock.pid}) left over from an earlier run did not stop within 30 s.`);
  }
}

async function servesDataDir(port: number, password: string, pgdata: string): Promise<boolean> {
  const client = new pg.Client({
    host: '127.0.0.1',
    port,
    user: SUPERUSER,
    password,
    database: 'postgres',
    connectionTimeoutMillis: 3000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ data_directory: string }>('show data_directory');
    return (await realpath(rows[0]!.data_directory)) === (await realpath(pgdata));
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function choosePort(dataDir: string): Promise<number> {
  const remembered = Number.parseInt(await readFile(join(dataDir, FILES.port), 'utf8').catch(() => ''), 10);
  if (Number.isInteger(remembered) && remembered > 0 && (await canListen(remembered))) return remembered;
  return freePort();
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const server = createServer();
    server.once('error', () => resolvePromise(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolvePromise(true)));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolvePromise(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export async function startServer(
  postgresBin: string,
  dataDir: string,
  pgdata: string,
  port: number,
  settings: Readonly<Record<string, string | number | boolean>>,
  detached: boolean,
  runAs: OsUser | undefined,
  timeoutMs: number,
): Promise<ChildProcess> {
  const logPath = join(dataDir, FILES.log);
  const logSize = await stat(logPath).then(
    (s) => s.size,
    () => 0,
  );
  if (logSize > MAX_LOG_BYTES) await rename(logPath, `${logPath}.1`);
  const logStart = logSize > MAX_LOG_BYTES ? 0 : logSize;
  // The server writes to a file, not a pipe, so it never depends on this process staying alive.
  const log = await open(logPath, 'a', 0o600);
  const args = ['-D', pgdata, '-p', String(port)];
  for (const [name, value] of Object.entries(settings)) args.push('-c', `${name}=${value}`);
  let child: ChildProcess;
  try {
    child = spawn(postgresBin, args, {
      stdio: ['ignore', log.fd, log.fd],
      detached,
      env: { ...process.env, LC_ALL: 'C' },
      ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
    });
  } finally {
    await log.close();
  }
  child.unref();

  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = `exit ${code ?? signal}`));
  child.once('error', (error) => (exited = error.message));

  const ready = await waitUntil(async () => {
    if (exited) return true;
    const lock = await readPidFile(pgdata);
    return lock !== undefined && lock.pid === child.pid && lock.status === 'ready';
  }, timeoutMs);
  if (exited || !ready) {
    if (!exited) await terminate(child);
    const tail = await readFile(logPath, 'utf8').then(
      (t) => t.slice(logStart).trim().split('\n').slice(-15).join('\n'),
      () => '',
    );
    throw new Error(
      `PostgreSQL did not start (${exited ?? `not ready after ${timeoutMs} ms`}). Log ${logPath}:\n${tail}`,
    );
  }
  return child;
}

/** SIGINT is PostgreSQL's fast shutdown; escalate to immediate shutdown, then kill. */
export async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolvePromise) => child.once('exit', () => resolvePromise()));
  child.ref(); // keep this process alive until the server is down
  const escalation: NodeJS.Signals[] = ['SIGINT', 'SIGQUIT', 'SIGKILL'];
  for (const signal of escalation) {
    child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      exited.then(() => false),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(true), signal === 'SIGINT' ? 30_000 : 5_000))),
    ]);
    clearTimeout(timer);
    if (!timedOut) return;
  }
}

async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
}
