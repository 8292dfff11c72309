import type { Kysely } from 'kysely';

/**
 * Runs `fn` in a transaction: `db`'s own when it is one already (the web pages run the operator
 * code inside their organization's transaction, where row-level security applies), else a new one.
 */
export function inTransaction<DB, T>(db: Kysely<DB>, fn: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}
