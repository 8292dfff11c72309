import { sql } from 'kysely';
import type { AnyDb } from './connect.js';

export interface AppRoleOptions {
  /** Default `quarry_app`. */
  role?: string;
  /** Set on a new role; on an existing one too, unless `keepPassword` (then it may be left out). */
  password?: string;
  /**
   * Leave an existing role's password as it is (`quarry migrate` as an upgrade: the services
   * running with it must keep connecting). Its attributes and grants are still set.
   */
  keepPassword?: boolean;
  /** The service schemas the app role may read and write. */
  schemas: readonly string[];
}

const IDENT = /^[a-z_][a-z0-9_]{0,62}$/;
const MIGRATION_TABLES = ['kysely_migration', 'kysely_migration_lock'];

/**
 * Create or update the role services connect as, and grant it data access to `schemas`.
 *
 * Row-level security only protects tenants if this role cannot step around it, so the role is
 * LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOREPLICATION and gets only USAGE on
 * the schemas, SELECT/INSERT/UPDATE/DELETE on their tables and USAGE on their sequences: no
 * CREATE, no ownership (an owner could ALTER TABLE ... NO FORCE ROW LEVEL SECURITY). Default
 * privileges extend the same grants to tables that the calling (migrating) role creates later.
 * Run it as the admin after `migrate`; it is idempotent. The role is cluster-wide, the grants
 * are per database.
 */
export async function provisionAppRole(adminDb: AnyDb, options: AppRoleOptions): Promise<void> {
  const keep = options.keepPassword === true;
  const role = options.role ?? 'quarry_app';
  for (const name of [role, ...options.schemas]) {
    if (!IDENT.test(name))
      throw new TypeError(`provisionAppRole: "${name}" is not a valid identifier (lowercase, a-z0-9_)`);
  }
  if (options.password !== undefined && (!options.password || options.password.includes('\0')))
    throw new TypeError('provisionAppRole: the password may not be empty or hold a NUL character');

  const r = sql.id(role);
  // Utility statements take no bind parameters; sql.lit quotes the password as a literal.
  const attributes = sql`login nosuperuser nobypassrls nocreatedb nocreaterole noreplication`;
  const withPassword = () => {
    if (options.password === undefined)
      throw new TypeError(`provisionAppRole: a password is required to create or change the password of ${role}`);
    return sql`${attributes} password ${sql.lit(options.password)}`;
  };
  await retryOnConcurrentUpdate(async () => {
    const exists = await sql`select 1 from pg_roles where rolname = ${role}`.execute(adminDb);
    if (exists.rows.length) await sql`alter role ${r} with ${keep ? attributes : withPassword()}`.execute(adminDb);
    else await sql`create role ${r} with ${withPassword()}`.execute(adminDb);
  });

  await adminDb.transaction().execute(async (trx) => {
    for (const schema of options.schemas) {
      const s = sql.id(schema);
      await sql`create schema if not exists ${s}`.execute(trx);
      await sql`revoke create on schema ${s} from ${r}`.execute(trx);
      await sql`grant usage on schema ${s} to ${r}`.execute(trx);
      await sql`grant select, insert, update, delete on all tables in schema ${s} to ${r}`.execute(trx);
      await sql`grant usage on all sequences in schema ${s} to ${r}`.execute(trx);
      await sql`alter default privileges in schema ${s} grant select, insert, update, delete on tables to ${r}`.execute(
        trx,
      );
      await sql`alter default privileges in schema ${s} grant usage on sequences to ${r}`.execute(trx);
      // Migration bookkeeping is the migrating role's business only.
      const bookkeeping = await sql<{ tablename: string }>`
        select tablename from pg_tables where schemaname = ${schema} and tablename in (${sql.join(MIGRATION_TABLES)})`.execute(
        trx,
      );
      for (const { tablename } of bookkeeping.rows) {
        await sql`revoke all on table ${sql.id(schema, tablename)} from ${r}`.execute(trx);
      }
    }
  });
}

/**
 * The connection string services use: the admin URL with the app role's credentials. Host,
 * port, database and options (e.g. sslmode) are kept.
 */
export function appUrlFrom(adminUrl: string, role: string, password: string): string {
  const url = new URL(adminUrl);
  url.username = encodeURIComponent(role);
  url.password = encodeURIComponent(password);
  return url.toString();
}

/** Roles are shared by all databases of a cluster; two databases provisioning at once can race. */
async function retryOnConcurrentUpdate(fn: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      const e = error as { code?: string; message?: string };
      const raced = e.code === '23505' || e.code === '42710' || /concurrently updated/.test(e.message ?? '');
      if (!raced || attempt >= 5) throw error;
      await new Promise((r) => setTimeout(r, 20 * attempt));
    }
  }
}
