import { sql } from 'kysely';
import type { StoredFlag } from './schema.js';
import type { Trx } from './tenant.js';

/** Source ids by kind (the three tables whose rows the search indexes hold). */
interface SourceIdsByKind {
  artifacts: string[];
  outputs: string[];
  extractionResults: string[];
}

/**
 * Which of `ids` exist in the org's three source tables: one statement, one primary-key probe per
 * id. It names the org as well as running as its tenant, like every read of this store.
 */
export async function existingIds(
  trx: Trx,
  orgId: string,
  ids: SourceIdsByKind,
): Promise<SourceIdsByKind & { flags: Map<string, StoredFlag[]> }> {
  // An artifact's flags ride along (null when it has none, so the common row stays small).
  const { rows } = await sql<{ kind: 'a' | 'o' | 'e'; id: string; flags: StoredFlag[] | null }>`
    SELECT 'a' AS kind, id, nullif(instruction_flags, '[]'::jsonb) AS flags FROM artifact.research_artifacts
     WHERE org_id = ${orgId} AND id = ANY(${ids.artifacts}::uuid[])
    UNION ALL
    SELECT 'o', id, null FROM artifact.research_outputs
     WHERE org_id = ${orgId} AND id = ANY(${ids.outputs}::uuid[])
    UNION ALL
    SELECT 'e', id, null FROM artifact.extraction_results
     WHERE org_id = ${orgId} AND id = ANY(${ids.extractionResults}::uuid[])`.execute(trx);
  const found = {
    artifacts: [] as string[],
    outputs: [] as string[],
    extractionResults: [] as string[],
    flags: new Map<string, StoredFlag[]>(),
  };
  for (const row of rows) {
    (row.kind === 'a' ? found.artifacts : row.kind === 'o' ? found.outputs : found.extractionResults).push(row.id);
    if (row.flags) found.flags.set(row.id, row.flags);
  }
  return found;
}
