import { groupKeys } from '../core/source.js';
import type { ChunkFilters, SourceKey } from '../types.js';

// The LanceDB (DataFusion SQL) predicates of the embedded adapter: every one starts from the
// org, so a tenant's rows are the only ones a query, a hash read or a delete can touch.

/** SQL string literal for a LanceDB (DataFusion) predicate. */
function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** The `where` clause of a search: org first, then the optional filters. */
export function lanceWhere(orgId: string, filters: ChunkFilters = {}): string {
  const parts = [`org_id = ${sqlString(orgId)}`];
  if (filters.sourceTable !== undefined) parts.push(`source_table = ${sqlString(filters.sourceTable)}`);
  if (filters.artifactType !== undefined) parts.push(`artifact_type = ${sqlString(filters.artifactType)}`);
  if (filters.planId !== undefined) parts.push(`plan_id = ${sqlString(filters.planId)}`);
  if (filters.tags && filters.tags.length > 0)
    parts.push(`array_has_all(tags, [${filters.tags.map(sqlString).join(', ')}])`);
  // created_at holds toISOString() text (prepareSource), so string order is time order; NULL never matches.
  if (filters.createdSince !== undefined) parts.push(`created_at >= ${sqlString(filters.createdSince)}`);
  if (filters.createdUntil !== undefined) parts.push(`created_at <= ${sqlString(filters.createdUntil)}`);
  return parts.join(' AND ');
}

export function sourceWhere(key: SourceKey): string {
  return `org_id = ${sqlString(key.orgId)} AND source_table = ${sqlString(key.sourceTable)} AND source_id = ${sqlString(key.sourceId)}`;
}

/**
 * The `where` clause of a batch hash read: one parenthesised group per (org, table), each with
 * its org, behind a leading `source_id IN (…)` of all the ids. The lead is what lets LanceDB use
 * the B-tree on source_id (it plans no index for an OR of groups and would scan the table, a gap
 * that grows with the table; ADR 0009).
 */
export function lanceSourcesWhere(keys: readonly SourceKey[]): string {
  const groups = groupKeys(keys);
  const ids = [...new Set(groups.flatMap((g) => g.sourceIds))];
  const byGroup = groups.map(
    (g) =>
      `(org_id = ${sqlString(g.orgId)} AND source_table = ${sqlString(g.sourceTable)} AND source_id IN (${g.sourceIds.map(sqlString).join(', ')}))`,
  );
  return `source_id IN (${ids.map(sqlString).join(', ')}) AND (${byGroup.join(' OR ')})`;
}

/** The `where` clause deleting vanished chunks of many sources: the same indexed lead, then one group per source with its org. */
export function lanceChunksWhere(removes: readonly { source: SourceKey; chunkNos: readonly number[] }[]): string {
  const ids = [...new Set(removes.map((r) => r.source.sourceId))];
  const bySource = removes.map((r) => `(${sourceWhere(r.source)} AND chunk_no IN (${r.chunkNos.join(', ')}))`);
  return `source_id IN (${ids.map(sqlString).join(', ')}) AND (${bySource.join(' OR ')})`;
}
