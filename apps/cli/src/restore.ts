import { readdir, realpath, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createDb, findRunningEmbeddedPostgres, startEmbeddedPostgres } from '@quarry/db';
import { migrateSchemas } from '@quarry/system';
import { countRows, importDatabase } from './backup-database.js';
import { restoreDataFiles } from './backup-files.js';
import { BackupIntegrityError, digestFile, readVerifiedManifest, type Manifest } from './backup-manifest.js';
import { hasEntries, refuseExternalDatabase } from './backup.js';
import type { DataDirectory } from './data-dir.js';
import { migrateAll, serviceSchemas } from './migrations.js';
import { reindex } from './reindex.js';
import { serviceRoles } from './roles.js';

export interface RestoreOptions {
  dir: DataDirectory;
  env: Readonly<Record<string, string | undefined>>;
  backupDir: string;
  /** Replace what the data directory holds (a stopped Quarry's) instead of refusing. */
  force: boolean;
  out: (line: string) => void;
}

/**
 * The service schemas cut to the migrations the backup's database had, so its rows load into
 * the tables they were read from; migrations newer than the backup run after the load. A
 * backup with a migration this version does not know was made by a newer Quarry: refused.
 */
function schemasAsBackedUp(manifest: Manifest) {
  const known = new Map(serviceSchemas.map((s) => [s.schema, s.migrations] as const));
  for (const [schema, names] of Object.entries(manifest.migrations)) {
    const unknown = names.filter((name) => !known.get(schema)?.[name]);
    if (unknown.length > 0)
      throw new Error(
        `The backup was made by a newer Quarry (${manifest.quarryVersion}): this one does not know the migration(s) ` +
          `${unknown.map((n) => `${schema}/${n}`).join(', ')}. Restore it with that version or a later one.`,
      );
  }
  return serviceSchemas.map(({ schema, migrations }) => ({
    schema,
    migrations: Object.fromEntries(
      Object.entries(migrations).filter(([name]) => manifest.migrations[schema]?.includes(name)),
    ),
  }));
}

/** Make sure the data directory may receive the backup: stopped, and empty unless `force`. */
async function prepareTarget(dir: DataDirectory, force: boolean): Promise<void> {
  if (await findRunningEmbeddedPostgres(dir.postgres))
    throw new Error(`Quarry is running on ${dir.root}: stop \`quarry start\` first; restore never writes under it.`);
  if (!(await hasEntries(dir.root))) return;
  const entries = await readdir(dir.root);
  if (!force)
    throw new Error(
      `${dir.root} is not empty (${entries.slice(0, 5).join(', ')}${entries.length > 5 ? ', …' : ''}): restore ` +
        'writes only into an empty or new data directory. Point QUARRY_DATA_DIR at a new one, or pass --force to ' +
        'delete what this one holds and replace it with the backup.',
    );
  const looksLikeQuarry = entries.some((e) => e === 'postgres' || e === 'search' || e.endsWith('.secret'));
  if (!looksLikeQuarry)
    throw new Error(`${dir.root} does not look like a Quarry data directory: --force deletes only one of those.`);
  // Run as root, the cluster may live elsewhere behind a symlink (see @quarry/db): it goes too,
  // or the next start would find it again without its password.
  const relocated = await realpath(join(dir.postgres, 'pgdata')).catch(() => undefined);
  if (relocated && !relocated.startsWith(`${await realpath(dir.root)}/`))
    await rm(relocated, { recursive: true, force: true });
  for (const entry of entries) await rm(join(dir.root, entry), { recursive: true, force: true });
}

/**
 * `quarry restore <dir>`: check the backup against its manifest, then into a stopped, empty data
 * directory: the files and secrets, a new embedded cluster migrated to the backup's migrations,
 * the rows, the newer migrations and both roles, the search indexes rebuilt from the rows; then
 * every table's row count and every restored file's SHA-256 checked against the manifest.
 */
export async function restore({ dir, env, backupDir, force, out }: RestoreOptions): Promise<Manifest> {
  refuseExternalDatabase(env, 'restore');
  const began = performance.now();
  const source = resolve(backupDir);
  const manifest = await readVerifiedManifest(source);
  out(
    `Backup of ${manifest.createdAt} (Quarry ${manifest.quarryVersion}) checked: ${manifest.files.length} file(s) intact.`,
  );
  const schemas = schemasAsBackedUp(manifest);
  await prepareTarget(dir, force);

  dir.create();
  let restored: Awaited<ReturnType<typeof restoreDataFiles>>;
  try {
    restored = await restoreInto(dir, env, source, manifest, schemas, out);
  } catch (error) {
    const e = error as Error;
    e.message += ` (${dir.root} now holds a partial restore: run \`quarry restore\` again with --force)`;
    throw e;
  }
  const rows = manifest.tables.reduce((n, t) => n + t.rows, 0);
  out(
    `Restored ${manifest.tables.length} table(s) (${rows} row(s), counts checked) and ${restored.length} file(s) ` +
      `(SHA-256 checked) into ${dir.root} in ${((performance.now() - began) / 1000).toFixed(1)} s. Start it: quarry start`,
  );
  return manifest;
}

/** The files, the database, the indexes, and the checks after: into a data directory made ready. */
async function restoreInto(
  dir: DataDirectory,
  env: Readonly<Record<string, string | undefined>>,
  source: string,
  manifest: Manifest,
  schemas: ReturnType<typeof schemasAsBackedUp>,
  out: (line: string) => void,
) {
  const restored = await restoreDataFiles(source, manifest.files, dir.root);
  const pg = await startEmbeddedPostgres({ dataDir: dir.postgres, persistent: true });
  try {
    const admin = createDb<unknown>({ connectionString: pg.adminUrl, applicationName: 'quarry-restore', max: 2 });
    try {
      await migrateSchemas(admin, schemas);
    } finally {
      await admin.destroy();
    }
    await importDatabase(pg.adminUrl, source, manifest);
    const newer = await migrateAll(pg.adminUrl, serviceRoles(env, dir));
    if (newer.length > 0) out(`Applied ${newer.length} migration(s) newer than the backup.`);
    const counts = await countRows(pg.adminUrl, manifest.tables);
    for (const [t, n] of counts)
      if (n !== t.rows)
        throw new Error(`After the restore ${t.schema}.${t.table} holds ${n} row(s); the manifest says ${t.rows}.`);
    await reindex({ adminUrl: pg.adminUrl, env, dataDir: dir.root, out });
  } finally {
    await pg.stop();
  }
  for (const { file, restored: path } of restored) {
    const actual = await digestFile(path);
    if (actual.sha256 !== file.sha256)
      throw new BackupIntegrityError(
        `${path} does not match the SHA-256 of ${file.path} in the manifest after restoring.`,
      );
  }
  return restored;
}
