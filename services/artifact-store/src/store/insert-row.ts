import type { Insertable } from 'kysely';
import type { ArtifactDatabase, Inserted, NewRow } from './schema.js';
import type { Trx } from './tenant.js';

/** The tables whose rows are stored one call, one row, as the handler built it. */
type RowTable = 'artifact.research_artifacts' | 'artifact.research_outputs';

/** One new artifact or output of `orgId`, inside the caller's tenant transaction. */
export async function insertRow<T extends RowTable>(
  trx: Trx,
  table: T,
  orgId: string,
  row: NewRow<T>,
): Promise<Inserted> {
  // NewRow<T> ties the row to its table; kysely cannot follow a table left generic, so the
  // statement is built for either table.
  const inserted = await trx
    .insertInto(table as RowTable)
    .values({ ...row, org_id: orgId } as Insertable<ArtifactDatabase[RowTable]>)
    .returning(['id', 'created_at'])
    .executeTakeFirstOrThrow();
  return { id: inserted.id, createdAt: inserted.created_at };
}
