// What a deletion removes, decided before any SQL: the rows of the artifact store that hold the
// content, and the events that tell the indexes to forget it.

/** The tables whose rows are indexed, as content events name them. */
export type SourceTable = 'research_artifact' | 'research_output' | 'extraction_result';

/** The content.deleted events for the deleted rows: ids only, never content. */
export function deletionEvents(
  orgId: string,
  deleted: readonly { sourceTable: SourceTable; sourceId: string; planId: string | null }[],
) {
  return deleted.map((d) => ({
    orgId,
    sourceTable: d.sourceTable,
    sourceId: d.sourceId,
    ...(d.planId ? { planId: d.planId } : {}),
  }));
}
