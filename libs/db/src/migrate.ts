import { Migrator, sql, type MigrationResult } from 'kysely';
import type { AnyDb } from './connect.js';

/** One schema change. Once applied anywhere it is frozen: never edit, rename or delete it. */
export interface Migration {
  up(db: AnyDb): Promise<void>;
  down?(db: AnyDb): Promise<void>;
}

export interface MigrateOptions {
  /** Connected as the role that owns the service's tables (admin), never as the app role. */
  db: AnyDb;
  /** The service's own schema; created if missing, and home of its `kysely_migration` table. */
  schema: string;
  /** Keyed by `YYYY_MM_DD_HHMM_description`, so name order is the order they were written. */
  migrations: Readonly<Record<string, Migration>>;
}

/** A migration run that did not complete; nothing of the failing run is committed. */
export class MigrationError extends Error {
  constructor(
    readonly schema: string,
    readonly results: readonly MigrationResult[],
    cause: unknown,
  ) {
    const failed = results.find((r) => r.status === 'Error')?.migrationName;
    super(
      `Migrating schema "${schema}" failed${failed ? ` in ${failed}` : ''}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.name = 'MigrationError';
  }
}

const NAME = /^\d{4}_\d{2}_\d{2}_\d{4}_[a-z0-9_]+$/;
const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Bring `schema` up to date and return the names applied by this call (empty when already
 * current). All pending migrations run in one transaction under kysely's migration lock, with
 * `search_path` set to the schema so unqualified names land in it. kysely refuses to run when
 * an applied migration is missing from `migrations` (renamed or deleted) or a new one sorts
 * before an applied one: both throw `MigrationError`.
 */
export async function migrate({ db, schema, migrations }: MigrateOptions): Promise<string[]> {
  if (!SCHEMA.test(schema)) throw new TypeError(`migrate: "${schema}" is not a valid schema name (lowercase, a-z0-9_)`);
  const bad = Object.keys(migrations).filter((name) => !NAME.test(name));
  if (bad.length)
    throw new TypeError(`migrate: migration names must look like 2026_11_21_1200_create_x, got ${bad.join(', ')}`);

  const inSchema = (step: (db: AnyDb) => Promise<void>) => async (trx: AnyDb) => {
    await sql`select set_config('search_path', ${`${schema}, public`}, true)`.execute(trx);
    await step(trx);
  };
  const wrapped = Object.fromEntries(
    Object.entries(migrations).map(([name, m]) => [
      name,
      { up: inSchema(m.up.bind(m)), down: m.down && inSchema(m.down.bind(m)) },
    ]),
  );

  const migrator = new Migrator({
    db,
    migrationTableSchema: schema,
    provider: { getMigrations: async () => wrapped },
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) throw new MigrationError(schema, results, error);
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
