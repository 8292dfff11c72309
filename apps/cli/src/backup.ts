import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { exportDatabase } from './backup-database.js';
import { backUpDataFiles } from './backup-files.js';
import { MANIFEST_FORMAT, writeManifest, type Manifest } from './backup-manifest.js';
import { openAdminDatabase } from './database.js';
import type { DataDirectory } from './data-dir.js';

export interface BackupOptions {
  dir: DataDirectory;
  env: Readonly<Record<string, string | undefined>>;
  /** Where the backup goes: a new or empty directory. */
  backupDir: string;
  out: (line: string) => void;
}

/** The version of Quarry that wrote a backup, for the manifest. */
function quarryVersion(): string {
  return (createRequire(import.meta.url)('../package.json') as { version: string }).version;
}

/** Backup and restore cover the embedded setup; an external PostgreSQL has its own tools. */
export function refuseExternalDatabase(env: Readonly<Record<string, string | undefined>>, command: string): void {
  if (env.DATABASE_URL || env.DATABASE_ADMIN_URL)
    throw new Error(
      `quarry ${command} is for the embedded setup (the data directory's own PostgreSQL); with DATABASE_URL or ` +
        'DATABASE_ADMIN_URL set, back up that server with its own tools (pg_dump, pg_basebackup, your provider).',
    );
}

/** Whether `path` is a directory with something in it (false when it does not exist). */
export async function hasEntries(path: string): Promise<boolean> {
  return (await readdir(path).catch(() => [])).length > 0;
}

/**
 * `quarry backup <dir>`: the database read from one snapshot (while `quarry start` runs, or
 * with the cluster started for the command), the data directory's secrets and files, and a
 * manifest with every file's SHA-256. The search indexes are left out: restore rebuilds them.
 */
export async function backup({ dir, env, backupDir, out }: BackupOptions): Promise<Manifest> {
  refuseExternalDatabase(env, 'backup');
  const began = performance.now();
  const target = resolve(backupDir);
  if (!existsSync(join(dir.postgres, 'pgdata', 'PG_VERSION')))
    throw new Error(`Nothing to back up: ${dir.root} holds no Quarry database (run \`quarry start\` once first).`);
  if (await hasEntries(target))
    throw new Error(`${target} is not empty: back up into a new or empty directory, so no older backup is mixed in.`);
  // The backup holds every secret of the data directory: readable by its owner only.
  await mkdir(join(target, 'database'), { recursive: true, mode: 0o700 });
  await chmod(target, 0o700);
  let manifest: Manifest;
  try {
    manifest = await writeBackup(dir, env, target, began);
  } catch (error) {
    // Half a backup must not pass for one: the directory was empty, so what is in it now is ours.
    for (const entry of await readdir(target)) await rm(join(target, entry), { recursive: true, force: true });
    throw error;
  }
  const rows = manifest.tables.reduce((n, t) => n + t.rows, 0);
  const bytes = manifest.files.reduce((n, f) => n + f.bytes, 0);
  out(
    `Backed up ${manifest.tables.length} table(s) (${rows} row(s)) and ${manifest.files.filter((f) => f.path.startsWith('files/')).length} file(s) of ${dir.root} ` +
      `to ${target} (${(bytes / 1024 / 1024).toFixed(1)} MiB) in ${(manifest.tookMs / 1000).toFixed(1)} s.`,
  );
  out('The backup holds the data directory’s secrets and tokens: keep it where only you can read it.');
  return manifest;
}

/** The database from one snapshot, then the data directory's files, then the manifest naming them all. */
async function writeBackup(
  dir: DataDirectory,
  env: Readonly<Record<string, string | undefined>>,
  target: string,
  began: number,
): Promise<Manifest> {
  const database = await openAdminDatabase(dir, env);
  let exported;
  try {
    exported = await exportDatabase(database.adminUrl, target);
  } finally {
    await database.stop();
  }
  const dataFiles = await backUpDataFiles(dir.root, target);
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    formatVersion: 1,
    quarryVersion: quarryVersion(),
    createdAt: new Date().toISOString(),
    tookMs: Math.round(performance.now() - began),
    postgres: exported.postgres,
    migrations: exported.migrations,
    tables: exported.tables,
    sequences: exported.sequences,
    files: [...exported.files, ...dataFiles],
    searchIndexes: 'rebuilt-on-restore',
  };
  await writeManifest(target, manifest);
  return manifest;
}
