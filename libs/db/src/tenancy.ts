import { sql, type Kysely, type Transaction } from 'kysely';

/** The tenant a unit of work runs for; `orgId` comes from the verified caller identity. */
export interface TenantIdentity {
  readonly orgId: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/**
 * Run `fn` in one transaction whose row-level-security tenant is `identity.orgId`.
 *
 * The tenant is set with `set_config('app.org_id', $1, true)`: transaction-local, so it ends
 * with the transaction and a pooled connection can never carry one tenant into the next
 * request. Outside `withTenant` the setting is empty and tenant tables show no rows. The org
 * id is validated before any SQL runs, so a malformed id cannot reach the database.
 */
export async function withTenant<DB, T>(
  db: Kysely<DB>,
  identity: TenantIdentity,
  fn: (trx: Transaction<DB>) => Promise<T>,
): Promise<T> {
  if (!isUuid(identity.orgId)) {
    throw new TypeError(`withTenant: orgId must be a UUID, got ${JSON.stringify(String(identity.orgId)).slice(0, 60)}`);
  }
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('app.org_id', ${identity.orgId}, true)`.execute(trx);
    return fn(trx);
  });
}
