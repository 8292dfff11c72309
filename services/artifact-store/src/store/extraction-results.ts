import type { Inserted, NewRow } from './schema.js';
import type { Trx } from './tenant.js';

/** An extraction result, inside the caller's tenant transaction. */
export async function insertExtractionResult(
  trx: Trx,
  orgId: string,
  row: NewRow<'artifact.extraction_results'>,
): Promise<Inserted> {
  const inserted = await trx
    .insertInto('artifact.extraction_results')
    .values({ ...row, org_id: orgId })
    .returning(['id', 'created_at'])
    .executeTakeFirstOrThrow();
  return { id: inserted.id, createdAt: inserted.created_at };
}

/** Everything stored for an extraction result (get_extraction, fetch). */
export function readExtraction(trx: Trx, extractionId: string) {
  return trx.selectFrom('artifact.extraction_results').selectAll().where('id', '=', extractionId).executeTakeFirst();
}
