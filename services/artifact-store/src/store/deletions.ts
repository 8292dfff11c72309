import type { SourceTable } from '../core/deletions.js';
import { releaseStorage } from './storage-usage.js';
import type { Trx } from './tenant.js';

// Deleting content for good, inside the caller's tenant transaction (row-level security confines
// every statement to the caller's org). Each function returns what it deleted, as the sources
// whose content.deleted events the handler appends in the same transaction.

export interface DeletedSource {
  sourceTable: SourceTable;
  sourceId: string;
  planId: string | null;
}

/** Where the artifacts and the outputs are stored. */
const CONTENT_TABLES = {
  research_artifact: 'artifact.research_artifacts',
  research_output: 'artifact.research_outputs',
} as const;

/**
 * Artifacts or outputs (the rows of `sourceTable`): the one with `id`, or all of a plan. What they
 * counted against the org's storage quota is freed in the same transaction.
 */
export async function deleteContentRows(
  trx: Trx,
  sourceTable: keyof typeof CONTENT_TABLES,
  where: { id: string } | { planId: string },
): Promise<DeletedSource[]> {
  const rows = await trx
    .deleteFrom(CONTENT_TABLES[sourceTable])
    .$if('id' in where, (q) => q.where('id', '=', (where as { id: string }).id))
    .$if('planId' in where, (q) => q.where('plan_id', '=', (where as { planId: string }).planId))
    .returning(['id', 'plan_id', 'stored_bytes'])
    .execute();
  await releaseStorage(trx, { bytes: rows.reduce((sum, r) => sum + Number(r.stored_bytes), 0), items: rows.length });
  return rows.map((r) => ({ sourceTable, sourceId: r.id, planId: r.plan_id }));
}

/** Extraction results of a plan and/or made from the given artifacts. */
export async function deleteExtractionRows(
  trx: Trx,
  where: { planId?: string; sourceArtifactIds: readonly string[] },
): Promise<DeletedSource[]> {
  const { planId, sourceArtifactIds } = where;
  if (!planId && sourceArtifactIds.length === 0) return [];
  const rows = await trx
    .deleteFrom('artifact.extraction_results')
    .where((eb) =>
      eb.or([
        ...(planId ? [eb('plan_id', '=', planId)] : []),
        ...(sourceArtifactIds.length > 0 ? [eb('source_artifact_id', 'in', [...sourceArtifactIds])] : []),
      ]),
    )
    .returning(['id', 'plan_id'])
    .execute();
  return rows.map((r) => ({ sourceTable: 'extraction_result', sourceId: r.id, planId: r.plan_id }));
}
