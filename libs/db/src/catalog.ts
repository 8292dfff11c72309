import { sql } from 'kysely';
import type { AnyDb } from './connect.js';

/** Row-level-security state of one table, as the catalog reports it. */
export interface TableRls {
  schema: string;
  table: string;
  hasOrgId: boolean;
  rlsEnabled: boolean;
  rlsForced: boolean;
  /** Policy names. */
  policies: string[];
  owner: string;
}

/** Every table (including partitions) in `schemas`, with its RLS state. */
export async function rlsReport(adminDb: AnyDb, schemas: readonly string[]): Promise<TableRls[]> {
  if (schemas.length === 0) return [];
  const { rows } = await sql<TableRls>`
    select n.nspname::text as schema,
           c.relname::text as table,
           exists (select 1 from pg_attribute a
                   where a.attrelid = c.oid and a.attname = 'org_id' and a.attnum > 0 and not a.attisdropped) as "hasOrgId",
           c.relrowsecurity as "rlsEnabled",
           c.relforcerowsecurity as "rlsForced",
           array(select p.polname::text from pg_policy p where p.polrelid = c.oid order by p.polname) as policies,
           pg_get_userbyid(c.relowner)::text as owner
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p') and n.nspname = any(${[...schemas]}::text[])
    order by 1, 2`.execute(adminDb);
  return rows;
}

/** Thrown by `assertTenantSafety`; `violations` lists every problem found, not just the first. */
export class TenantSafetyError extends Error {
  constructor(readonly violations: readonly string[]) {
    super(`Tenant isolation is not guaranteed:\n${violations.map((v) => `  - ${v}`).join('\n')}`);
    this.name = 'TenantSafetyError';
  }
}

const READS_TENANT = /current_setting\('app\.org_id'/;
/**
 * A permissive policy that deliberately ignores the tenant (e.g. authenticating a token before
 * the tenant is known) must say so and why in its comment, so the exception is visible in the
 * schema and in review: `comment on policy p on t is 'quarry:tenant-exempt: <reason>'`.
 */
const TENANT_EXEMPT = /^quarry:tenant-exempt:\s*\S.{9,}/s;

/**
 * Check in the catalog what docs/architecture.md (Tenancy) promises, and throw listing every violation:
 * each table with `org_id` in `schemas` has RLS ENABLED and FORCED and a policy reading
 * `current_setting('app.org_id', ...)`, and none of its permissive policies ignores the tenant
 * (permissive policies are OR-ed, so one `using (true)` opens the table) unless it is a
 * SELECT-only policy whose comment carries the `quarry:tenant-exempt:` marker and a reason; the app role exists,
 * is not superuser and has no BYPASSRLS (nor can SET ROLE to a role that is), owns no table
 * or schema (nor is a member of an owner: owners can switch RLS off), and cannot CREATE in the
 * schemas or the database.
 */
export async function assertTenantSafety(
  adminDb: AnyDb,
  options: { schemas: readonly string[]; appRole: string },
): Promise<void> {
  const { schemas, appRole } = options;
  const violations: string[] = [];

  const policies = await sql<{
    schema: string;
    table: string;
    name: string;
    permissive: boolean;
    command: string;
    using: string | null;
    check: string | null;
    comment: string | null;
  }>`
    select n.nspname::text as schema, c.relname::text as table, p.polname::text as name, p.polpermissive as permissive,
           p.polcmd::text as command, pg_get_expr(p.polqual, p.polrelid) as using, pg_get_expr(p.polwithcheck, p.polrelid) as check,
           obj_description(p.oid, 'pg_policy') as comment
    from pg_policy p
    join pg_class c on c.oid = p.polrelid
    join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = any(${[...schemas]}::text[])`.execute(adminDb);

  for (const t of await rlsReport(adminDb, schemas)) {
    if (!t.hasOrgId) continue;
    const name = `${t.schema}.${t.table}`;
    if (!t.rlsEnabled) violations.push(`${name} has org_id but row level security is not ENABLED`);
    if (!t.rlsForced) violations.push(`${name} has org_id but row level security is not FORCED`);
    const own = policies.rows.filter((p) => p.schema === t.schema && p.table === t.table);
    if (!own.some((p) => READS_TENANT.test(p.using ?? '') || READS_TENANT.test(p.check ?? ''))) {
      violations.push(`${name} has org_id but no policy reading current_setting('app.org_id')`);
    }
    for (const p of own.filter((p) => p.permissive)) {
      const exemption = TENANT_EXEMPT.exec(p.comment ?? '');
      if (exemption) {
        // A documented exception may only ever let rows be read, never written.
        if (p.command !== 'r') violations.push(`${name}: tenant-exempt policy ${p.name} must be FOR SELECT only`);
        continue;
      }
      const ignoresTenant = [p.using, p.check].some((expr) => expr !== null && !READS_TENANT.test(expr));
      if (ignoresTenant) violations.push(`${name}: permissive policy ${p.name} does not restrict rows to app.org_id`);
    }
  }

  const role = await sql<{
    exists: boolean;
  }>`select exists (select 1 from pg_roles where rolname = ${appRole}) as exists`.execute(adminDb);
  if (!role.rows[0]?.exists) {
    violations.push(`app role ${appRole} does not exist`);
    throw new TenantSafetyError(violations);
  }

  const powerful = await sql<{ rolname: string; rolsuper: boolean; rolbypassrls: boolean }>`
    select rolname::text, rolsuper, rolbypassrls from pg_roles
    where (rolsuper or rolbypassrls) and pg_has_role(${appRole}, oid, 'MEMBER')`.execute(adminDb);
  for (const r of powerful.rows) {
    const what = [r.rolsuper && 'SUPERUSER', r.rolbypassrls && 'BYPASSRLS'].filter(Boolean).join(' and ');
    violations.push(
      r.rolname === appRole
        ? `app role ${appRole} has ${what}`
        : `app role ${appRole} is a member of ${r.rolname}, which has ${what}`,
    );
  }

  const owned = await sql<{ kind: string; name: string; owner: string }>`
    select 'table' as kind, n.nspname || '.' || c.relname as name, pg_get_userbyid(c.relowner)::text as owner
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p', 'v', 'm', 'f', 'S')
      and n.nspname <> 'information_schema' and n.nspname not like 'pg\\_%'
      and pg_has_role(${appRole}, c.relowner, 'MEMBER')
    union all
    select 'schema', n.nspname::text, pg_get_userbyid(n.nspowner)::text
    from pg_namespace n
    where n.nspname <> 'information_schema' and n.nspname not like 'pg\\_%'
      and pg_has_role(${appRole}, n.nspowner, 'MEMBER')
    order by 1, 2`.execute(adminDb);
  for (const o of owned.rows) {
    violations.push(
      o.owner === appRole
        ? `app role ${appRole} owns ${o.kind} ${o.name}`
        : `app role ${appRole} is a member of ${o.owner}, which owns ${o.kind} ${o.name}`,
    );
  }

  const creates = await sql<{ schema: string }>`
    select s as schema from unnest(${[...schemas]}::text[]) s
    where exists (select 1 from pg_namespace where nspname = s) and has_schema_privilege(${appRole}, s, 'CREATE')`.execute(
    adminDb,
  );
  for (const c of creates.rows) violations.push(`app role ${appRole} can CREATE in schema ${c.schema}`);
  const database = await sql<{ name: string; can: boolean }>`
    select current_database()::text as name, has_database_privilege(${appRole}, current_database(), 'CREATE') as can`.execute(
    adminDb,
  );
  if (database.rows[0]?.can)
    violations.push(`app role ${appRole} can CREATE schemas in database ${database.rows[0].name}`);

  if (violations.length) throw new TenantSafetyError(violations);
}
