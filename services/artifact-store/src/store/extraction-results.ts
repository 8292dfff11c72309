import type { Inserted, NewRow } from './schema.js';
import type { Trx } from './tenant.js';

/**
 * An extraction result, inside the caller's tenant transaction. With an idempotency key already
 * used in this org, nothing is inserted and the first row's id and data come back (`replayed`);
 * `on conflict do nothing` makes two racing inserts of one key store one row.
 */
export async function insertExtractionResult(
  trx: Trx,
  orgId: string,
  row: NewRow<'artifact.extraction_results'>,
): Promise<(Inserted & { replayed: false }) | (Inserted & { replayed: true; data: unknown })> {
  const inserted = await trx
    .insertInto('artifact.extraction_results')
    .values({ ...row, org_id: orgId })
    .onConflict((oc) => oc.columns(['org_id', 'idempotency_key']).where('idempotency_key', 'is not', null).doNothing())
    .returning(['id', 'created_at'])
    .executeTakeFirst();
  if (inserted) return { id: inserted.id, createdAt: inserted.created_at, replayed: false };
  const first = await trx
    .selectFrom('artifact.extraction_results')
    .select(['id', 'created_at', 'data'])
    .where('org_id', '=', orgId)
    .where('idempotency_key', '=', row.idempotency_key!)
    .executeTakeFirstOrThrow();
  return { id: first.id, createdAt: first.created_at, replayed: true, data: first.data };
}

/** Everything stored for an extraction result (get_extraction, fetch). */
export function readExtraction(trx: Trx, extractionId: string) {
  return trx.selectFrom('artifact.extraction_results').selectAll().where('id', '=', extractionId).executeTakeFirst();
}
