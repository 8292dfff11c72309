import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { lstat, mkdtemp, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { findRunningEmbeddedPostgres, startEmbeddedPostgres, type EmbeddedPostgres } from '@quarry/db';
import { until } from './support.js';

const dirs: string[] = [];
const servers: EmbeddedPostgres[] = [];

async function newDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'quarry-db-embedded-'));
  dirs.push(dir);
  return dir;
}

async function start(
  dataDir: string,
  options: { persistent?: boolean; database?: string } = {},
): Promise<EmbeddedPostgres> {
  const server = await startEmbeddedPostgres({
    dataDir,
    persistent: options.persistent ?? true,
    database: options.database,
  });
  servers.push(server);
  return server;
}

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('startEmbeddedPostgres', () => {
  it('initialises a cluster on first use and serves it on 127.0.0.1 only, then stops', async () => {
    const dataDir = await newDataDir();
    const server = await start(dataDir);

    expect(server.timings.initdbMs).toEqual(expect.any(Number));
    const url = new URL(server.adminUrl);
    expect(url.hostname).toBe('127.0.0.1');
    expect(Number(url.port)).toBe(server.port);
    const [settings] = await query<{ listen: string; sockets: string; version: string; superuser: string }>(
      server.adminUrl,
      `select current_setting('listen_addresses') as listen, current_setting('unix_socket_directories') as sockets,
              current_setting('server_version') as version, current_setting('is_superuser') as superuser`,
    );
    expect(settings).toEqual({
      listen: '127.0.0.1',
      sockets: '',
      version: expect.stringMatching(/^18\./),
      superuser: 'on',
    });

    await server.stop();
    expect(isAlive(server.pid)).toBe(false);
    await expect(query(server.adminUrl, 'select 1')).rejects.toThrow(/ECONNREFUSED/);
    await expect(server.stop()).resolves.toBeUndefined();
  });

  it('generates the superuser password once and keeps it in the data dir, readable by the owner only', async () => {
    const dataDir = await newDataDir();
    const server = await start(dataDir);
    const file = join(dataDir, 'superuser-password');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, 'utf8')).trim()).toBe(decodeURIComponent(new URL(server.adminUrl).password));
    expect(decodeURIComponent(new URL(server.adminUrl).password)).toMatch(/^[\w-]{32}$/);
    await server.stop();
  });

  it('refuses, with a way out, to start a cluster whose superuser password file is gone', async () => {
    const dataDir = await newDataDir();
    await (await start(dataDir)).stop();
    await rm(join(dataDir, 'superuser-password'));
    await expect(startEmbeddedPostgres({ dataDir, persistent: true })).rejects.toThrow(
      /superuser-password is missing.*delete/,
    );
  });

  it('reuses the cluster, its data and its port on the next start', async () => {
    const dataDir = await newDataDir();
    const first = await start(dataDir, { database: 'quarry' });
    expect(new URL(first.adminUrl).pathname).toBe('/quarry');
    await query(first.adminUrl, `create table survivor (note text); insert into survivor values ('still here')`);
    await first.stop();

    const second = await start(dataDir, { database: 'quarry' });
    expect(second.timings.initdbMs).toBeNull();
    expect(second.port).toBe(first.port);
    expect(second.adminUrl).toBe(first.adminUrl);
    expect(await query(second.adminUrl, 'select note from survivor')).toEqual([{ note: 'still here' }]);
    await second.stop();
  });

  it('uses the port it is given', async () => {
    const dataDir = await newDataDir();
    const probe = await start(dataDir);
    await probe.stop();
    const server = await startEmbeddedPostgres({ dataDir, persistent: true, port: probe.port + 1 });
    servers.push(server);
    expect(server.port).toBe(probe.port + 1);
    expect(await query(server.adminUrl, 'select 1 as one')).toEqual([{ one: 1 }]);
    await server.stop();
  });

  it('deletes a throwaway (non-persistent) cluster on stop', async () => {
    const dataDir = await newDataDir();
    const server = await start(dataDir, { persistent: false });
    expect(await query(server.adminUrl, `select current_setting('fsync') as fsync`)).toEqual([{ fsync: 'off' }]);
    await server.stop();
    await expect(stat(dataDir)).rejects.toThrow(/ENOENT/);
  });

  it('lets another process find the running server, and not a stopped one', async () => {
    const dataDir = await newDataDir();
    const server = await start(dataDir);
    const found = await findRunningEmbeddedPostgres(dataDir);
    expect(found).toEqual({ adminUrl: server.adminUrl, port: server.port, pid: server.pid });
    await server.stop();
    expect(await findRunningEmbeddedPostgres(dataDir)).toBeUndefined();
  });
});

describe('startEmbeddedPostgres as root under a closed directory', () => {
  const asRoot = process.getuid?.() === 0 ? it : it.skip;
  asRoot('keeps the cluster where the server user can reach it, stable across restarts', async () => {
    const closed = await newDataDir(); // mkdtemp: 0700, the server's OS user cannot traverse it
    const dataDir = join(closed, 'project', '.quarry', 'postgres');
    const first = await start(dataDir);
    await query(first.adminUrl, 'create table kept (v int); insert into kept values (42)');
    await first.stop();
    const link = join(dataDir, 'pgdata');
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toMatch(/^\/var\/tmp\/quarry-pgdata-[0-9a-f]{16}$/);
    const again = await start(dataDir);
    expect(await query<{ v: number }>(again.adminUrl, 'select v from kept')).toEqual([{ v: 42 }]);
    expect(await findRunningEmbeddedPostgres(dataDir)).toMatchObject({ port: again.port });
    await again.stop();
    await rm(await readlink(link), { recursive: true, force: true });
  });
});

describe('startEmbeddedPostgres after a crash', () => {
  it('starts over the postmaster.pid of a killed server, with committed data intact', async () => {
    const dataDir = await newDataDir();
    const crashed = await start(dataDir);
    await query(crashed.adminUrl, `create table t (n int); insert into t values (1)`);
    process.kill(crashed.pid, 'SIGKILL');
    await until(() => !isAlive(crashed.pid));
    await expect(stat(join(dataDir, 'pgdata', 'postmaster.pid'))).resolves.toBeDefined();

    const restarted = await start(dataDir);
    expect(await query(restarted.adminUrl, 'select n from t')).toEqual([{ n: 1 }]);
    await restarted.stop();
  });

  it('starts when the pid in a stale postmaster.pid now belongs to an unrelated process', async () => {
    const dataDir = await newDataDir();
    const server = await start(dataDir);
    const lockFile = join(dataDir, 'pgdata', 'postmaster.pid');
    const lock = await readFile(lockFile, 'utf8');
    await server.stop();

    // Run it as the server's OS user: PostgreSQL itself already ignores a pid it may not signal.
    const { uid, gid } = await stat(join(dataDir, 'pgdata'));
    const unrelated = spawn('sleep', ['30'], process.getuid?.() === 0 ? { uid, gid } : {});
    try {
      await writeFile(lockFile, lock.replace(/^\d+/, String(unrelated.pid)));
      const restarted = await start(dataDir);
      expect(await query(restarted.adminUrl, 'select 1 as one')).toEqual([{ one: 1 }]);
      await restarted.stop();
    } finally {
      unrelated.kill();
    }
  });

  it('shuts down a server orphaned by a killed process and starts its own', async () => {
    const dataDir = await newDataDir();
    const orphan = await start(dataDir);
    await query(orphan.adminUrl, `create table t (n int); insert into t values (7)`);
    // Pretend the process that started it died: its pid no longer exists.
    const gone = spawn('true');
    await new Promise((r) => gone.once('exit', r));
    await writeFile(join(dataDir, 'owner.pid'), `${gone.pid}\n`);

    const replacement = await start(dataDir);
    expect(replacement.pid).not.toBe(orphan.pid);
    expect(isAlive(orphan.pid)).toBe(false);
    expect(await query(replacement.adminUrl, 'select n from t')).toEqual([{ n: 7 }]);
    await replacement.stop();
  });

  it('supervised, restarts a killed server on the same port, data intact, and stops it for good on stop()', async () => {
    const dataDir = await newDataDir();
    const events: string[] = [];
    let restarted: () => void = () => undefined;
    const back = new Promise<void>((resolvePromise) => (restarted = resolvePromise));
    const server = await startEmbeddedPostgres({
      dataDir,
      persistent: true,
      supervise: {
        onExit: (reason) => events.push(`exit: ${reason}`),
        onRestarted: ({ attempts }) => {
          events.push(`restarted after ${attempts} attempt(s)`);
          restarted();
        },
        onGaveUp: (error) => events.push(`gave up: ${error.message}`),
      },
    });
    servers.push(server);
    await query(server.adminUrl, `create table t (n int); insert into t values (3)`);
    const first = server.pid;
    process.kill(first, 'SIGKILL'); // as the OOM killer would
    await back;
    expect(events[0]).toBe('exit: killed by SIGKILL');
    expect(events[1]).toMatch(/^restarted after \d attempt\(s\)$/);
    expect(server.pid).not.toBe(first);
    // Same URL (port, password) as before: clients reconnect without knowing.
    expect(await query(server.adminUrl, 'select n from t')).toEqual([{ n: 3 }]);

    const last = server.pid;
    await server.stop();
    expect(isAlive(last)).toBe(false);
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 600));
    expect(events).toHaveLength(2); // a stop is not a crash: no restart
  });

  it('supervised, gives up when the server cannot be started again, and says why', async () => {
    const dataDir = await newDataDir();
    let gaveUp: (error: Error) => void = () => undefined;
    const failure = new Promise<Error>((resolvePromise) => (gaveUp = resolvePromise));
    const server = await startEmbeddedPostgres({
      dataDir,
      persistent: true,
      supervise: { onExit: () => undefined, onRestarted: () => undefined, onGaveUp: (e) => gaveUp(e), maxAttempts: 2 },
    });
    servers.push(server);
    const first = server.pid;
    process.kill(first, 'SIGKILL');
    await until(() => !isAlive(first));
    // Someone else takes the port meanwhile.
    const squatter = createServer();
    await new Promise<void>((resolvePromise, reject) =>
      squatter.once('error', reject).listen(server.port, '127.0.0.1', resolvePromise),
    );
    try {
      expect((await failure).message).toMatch(/PostgreSQL did not start[\s\S]*(could not bind|Address already in use)/);
    } finally {
      squatter.close();
    }
    await server.stop();
  });

  it('refuses to start a second server on a data dir whose server is in use', async () => {
    const dataDir = await newDataDir();
    const running = await start(dataDir);
    await expect(startEmbeddedPostgres({ dataDir, persistent: true })).rejects.toThrow(/already running/);
    expect(await query(running.adminUrl, 'select 1 as one')).toEqual([{ one: 1 }]);
    await running.stop();
  });
});
