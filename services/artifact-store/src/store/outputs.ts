import type { Inserted, NewRow } from './schema.js';
import type { Trx } from './tenant.js';

/** A research output (a text form or a binary document's bytes), inside the caller's tenant transaction. */
export async function insertOutput(
  trx: Trx,
  orgId: string,
  row: NewRow<'artifact.research_outputs'>,
): Promise<Inserted> {
  const inserted = await trx
    .insertInto('artifact.research_outputs')
    .values({ ...row, org_id: orgId })
    .returning(['id', 'created_at'])
    .executeTakeFirstOrThrow();
  return { id: inserted.id, createdAt: inserted.created_at };
}

/** Everything stored for a research output (get_research_output, fetch). */
export function readOutput(trx: Trx, outputId: string) {
  return trx.selectFrom('artifact.research_outputs').selectAll().where('id', '=', outputId).executeTakeFirst();
}
