import type { KeysetPosition } from '@quarry/cursors';
import { sql } from 'kysely';
import type { Trx } from './tenant.js';

/** Everything stored for a research output (get_research_output, fetch). */
export function readOutput(trx: Trx, outputId: string) {
  return trx.selectFrom('artifact.research_outputs').selectAll().where('id', '=', outputId).executeTakeFirst();
}

/**
 * A page of the org's research outputs without their content, most recent first, keyset on
 * (created_at, id) after `after` (created_at as PostgreSQL's own text, so no microsecond is lost).
 */
export function listOutputsPage(
  trx: Trx,
  planId: string | undefined,
  after: KeysetPosition | undefined,
  limit: number,
) {
  let query = trx
    .selectFrom('artifact.research_outputs')
    .select([
      'id',
      'plan_id',
      'media_type',
      'title',
      'content_size',
      'created_at',
      sql<string>`created_at::text`.as('created_at_text'),
    ]);
  if (planId !== undefined) query = query.where('plan_id', '=', planId);
  if (after) query = query.where(sql<boolean>`(created_at, id) < (${after.at}::timestamptz, ${after.id}::uuid)`);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}
