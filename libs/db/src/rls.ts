import { sql, type RawBuilder } from 'kysely';
import type { AnyDb } from './connect.js';

/**
 * The one tenant predicate every policy uses. `current_setting(..., true)` returns '' or NULL
 * when no tenant is set, which `nullif` turns into NULL, so the comparison is never true and
 * the row is invisible (rather than the query failing on an invalid uuid cast).
 */
function tenantPredicate(column = 'org_id'): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} = nullif(current_setting('app.org_id', true), '')::uuid`;
}

/**
 * Make `table` (optionally `schema.table`) tenant-isolated the same way in every service:
 * ENABLE and FORCE row level security (FORCE so even the owning role obeys it) and one policy
 * `tenant_isolation` whose USING and WITH CHECK both require `org_id` to be the current tenant,
 * so rows of another org can be neither read nor written. Call it in the migration that
 * creates the table.
 */
export async function enableTenantRls(db: AnyDb, table: string, options: { column?: string } = {}): Promise<void> {
  const target = sql.table(table);
  const predicate = tenantPredicate(options.column);
  await sql`alter table ${target} enable row level security`.execute(db);
  await sql`alter table ${target} force row level security`.execute(db);
  await sql`drop policy if exists tenant_isolation on ${target}`.execute(db);
  await sql`create policy tenant_isolation on ${target} as permissive for all using (${predicate}) with check (${predicate})`.execute(
    db,
  );
}
