import { withTenant, type AnyDb, type Kysely } from '@quarry/db';
import { sql, type SelectQueryBuilder } from 'kysely';
import type { ContentCreatedV1 } from '@quarry/events';
import {
  artifactSourceEvent,
  extractionSourceEvent,
  outputSourceEvent,
  type ArtifactRow,
} from '../core/source-events.js';
import type { ArtifactDatabase } from './schema.js';

/** One page of an org's stored sources as content.created events, for `quarry reindex`. */
export interface IndexableSourcesPage {
  events: ContentCreatedV1[];
  /** Rows read that gave no event (blank text, or no valid event). */
  skipped: number;
}

const typed = (db: AnyDb) => db as Kysely<ArtifactDatabase>;

/** The tables whose rows are sources of the indexes. */
type SourceTableName = 'artifact.research_artifacts' | 'artifact.research_outputs' | 'artifact.extraction_results';

/** How many rows of `orgId` the three source tables hold (what a reindex reads). */
export async function countIndexableSources(db: AnyDb, orgId: string): Promise<number> {
  return withTenant(typed(db), { orgId }, async (trx) => {
    let total = 0;
    for (const table of [
      'artifact.research_artifacts',
      'artifact.research_outputs',
      'artifact.extraction_results',
    ] as const) {
      const row = await trx
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('org_id', '=', orgId)
        .executeTakeFirst();
      total += Number(row?.n ?? 0);
    }
    return total;
  });
}

// Every read names the org as well as running as its tenant: the admin that `quarry reindex`
// connects as may be a superuser, whom row level security does not bind.

/**
 * Every stored source of `orgId` as the content.created event its row stands for today (current
 * tags, deleted rows long gone), in pages of `pageSize` rows read by id, one short transaction per
 * page, as that tenant. `db` may be any role the tenant policies admit (the admin).
 */
export async function* indexableSources(
  db: AnyDb,
  orgId: string,
  pageSize = 200,
): AsyncGenerator<IndexableSourcesPage> {
  const tdb = typed(db);
  const page = <R extends { id: string }>(
    select: (trx: Kysely<ArtifactDatabase>) => SelectQueryBuilder<ArtifactDatabase, SourceTableName, R>,
    toEvent: (row: R) => ContentCreatedV1 | null,
  ) =>
    (async function* () {
      let after = '00000000-0000-0000-0000-000000000000';
      for (;;) {
        const rows = await withTenant(tdb, { orgId }, (trx) =>
          select(trx).where('org_id', '=', orgId).where('id', '>', after).orderBy('id').limit(pageSize).execute(),
        );
        if (rows.length === 0) return;
        const events = rows.map(toEvent).filter((e): e is ContentCreatedV1 => e !== null);
        yield { events, skipped: rows.length - events.length };
        if (rows.length < pageSize) return;
        after = rows[rows.length - 1]!.id;
      }
    })();

  yield* page(
    (trx) =>
      trx.selectFrom('artifact.research_artifacts').select([
        'id',
        'org_id',
        'plan_id',
        'step_id',
        'artifact_type',
        'title',
        'content',
        'content_text',
        'tags',
        'created_at',
        // A source document's pages, so its chunks are cut and named by page as when it was stored.
        sql<ArtifactRow['document_units']>`(
            select json_build_object('kind', d.unit_kind, 'units', d.units)
            from artifact.documents d
            where d.artifact_id = research_artifacts.id
          )`.as('document_units'),
      ]),
    artifactSourceEvent,
  );
  yield* page(
    (trx) =>
      trx
        .selectFrom('artifact.research_outputs')
        .select(['id', 'org_id', 'plan_id', 'title', 'content_text', 'content_summary', 'created_at']),
    outputSourceEvent,
  );
  yield* page(
    (trx) =>
      trx
        .selectFrom('artifact.extraction_results')
        .select(['id', 'org_id', 'plan_id', 'step_id', 'data', 'extraction_schema', 'schema_hash', 'created_at']),
    extractionSourceEvent,
  );
}
