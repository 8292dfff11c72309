import type { NewRow } from './schema.js';
import type { Trx } from './tenant.js';

// Research artifacts (client artifacts and subagent reports), always inside the caller's
// tenant transaction.

export async function insertArtifact(
  trx: Trx,
  orgId: string,
  row: NewRow<'artifact.research_artifacts'>,
): Promise<string> {
  const inserted = await trx
    .insertInto('artifact.research_artifacts')
    .values({ ...row, org_id: orgId })
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

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
