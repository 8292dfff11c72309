import type { KeysetPosition } from '@quarry/cursors';
import { sql } from 'kysely';
import type { Trx } from './tenant.js';

// Research artifacts (client artifacts and subagent reports), always inside the caller's
// tenant transaction (they are inserted by insert-row.ts).

/** A plan's artifacts, oldest first (ties by id, so the order is stable), at most `limit`. */
export function planArtifacts(trx: Trx, planId: string, limit: number) {
  return trx
    .selectFrom('artifact.research_artifacts')
    .select(['id', 'artifact_type', 'title', 'confidence', 'step_id', 'created_at'])
    .where('plan_id', '=', planId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** What an artifact reads as: its title, plan, content and text. */
export function findArtifact(trx: Trx, artifactId: string) {
  return trx
    .selectFrom('artifact.research_artifacts')
    .select(['id', 'title', 'plan_id', 'content', 'content_text'])
    .where('id', '=', artifactId)
    .executeTakeFirst();
}

export async function artifactExists(trx: Trx, artifactId: string): Promise<boolean> {
  const found = await trx
    .selectFrom('artifact.research_artifacts')
    .select('id')
    .where('id', '=', artifactId)
    .executeTakeFirst();
  return found !== undefined;
}

/** Everything stored for an artifact (get_artifact, fetch). */
export function readArtifact(trx: Trx, artifactId: string) {
  return trx
    .selectFrom('artifact.research_artifacts')
    .select([
      'id',
      'artifact_type',
      'source',
      'title',
      'content',
      'content_text',
      'confidence',
      'tags',
      'plan_id',
      'step_id',
      'created_at',
      'instruction_flags',
    ])
    .where('id', '=', artifactId)
    .executeTakeFirst();
}

/** What a list or search filters artifacts by; all given conditions hold. */
export interface ArtifactFilters {
  planId?: string;
  artifactType?: string;
  tags: readonly string[];
  createdSince?: Date;
}

/**
 * One page of artifacts, most recent first, after the keyset position `after` (the last row of
 * the previous page: created_at as PostgreSQL's own text, so no microsecond is lost, and id).
 */
export function listArtifactsPage(
  trx: Trx,
  filters: ArtifactFilters,
  after: KeysetPosition | undefined,
  limit: number,
) {
  let query = trx
    .selectFrom('artifact.research_artifacts')
    .select([
      'id',
      'artifact_type',
      'source',
      'title',
      'confidence',
      'tags',
      'plan_id',
      'step_id',
      'created_at',
      sql<string>`created_at::text`.as('created_at_text'),
    ]);
  if (filters.planId !== undefined) query = query.where('plan_id', '=', filters.planId);
  if (filters.artifactType !== undefined) query = query.where('artifact_type', '=', filters.artifactType);
  if (filters.tags.length > 0) query = query.where(sql<boolean>`tags @> ${sql.val([...filters.tags])}::text[]`);
  if (filters.createdSince !== undefined) query = query.where('created_at', '>=', filters.createdSince);
  if (after) query = query.where(sql<boolean>`(created_at, id) < (${after.at}::timestamptz, ${after.id}::uuid)`);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** Every tag of the org's artifacts with how many carry it, most used first, at most `limit`. */
export async function tagCounts(trx: Trx, limit: number): Promise<{ tag: string; count: number }[]> {
  const { rows } = await sql<{ tag: string; count: number }>`
    select tag, count(*)::int as count
    from artifact.research_artifacts, unnest(tags) as tag
    group by tag
    order by count desc, tag
    limit ${limit}
  `.execute(trx);
  return rows;
}

/** An artifact locked for a change of its tags, with what its content.created event needs. */
export function lockArtifact(trx: Trx, artifactId: string) {
  return trx
    .selectFrom('artifact.research_artifacts')
    .select(['id', 'artifact_type', 'title', 'content', 'content_text', 'tags', 'plan_id', 'step_id', 'created_at'])
    .where('id', '=', artifactId)
    .forUpdate()
    .executeTakeFirst();
}

export async function setArtifactTags(trx: Trx, artifactId: string, tags: readonly string[]): Promise<void> {
  await trx
    .updateTable('artifact.research_artifacts')
    .set({ tags: [...tags] })
    .where('id', '=', artifactId)
    .execute();
}
