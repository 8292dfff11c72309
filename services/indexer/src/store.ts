import { sql, withTenant, type AnyDb, type ColumnType, type Kysely } from '@quarry/db';
import { sourceKeyOf, versionOf, type Version } from './core/versions.js';

/** `indexer.indexed_sources`: which event version each indexed source's chunks come from. */
export interface IndexedSourcesTable {
  org_id: string;
  source_table: string;
  source_id: string;
  event_id: string;
  occurred_at: Date;
  text_sha256: string;
  chunk_count: number;
  /** `<embedder id>/<dimension>` of the vectors written. */
  embedder: string;
  indexed_at: ColumnType<Date, never, Date>;
  /** Set on a tombstone: the source was deleted (content.deleted). */
  deleted_at: Date | null;
}

export interface IndexerDatabase {
  'indexer.indexed_sources': IndexedSourcesTable;
}

export interface SourceRef {
  orgId: string;
  sourceTable: string;
  sourceId: string;
}

export type IndexedSourceRow = Omit<IndexedSourcesTable, 'indexed_at'>;

const typed = (db: AnyDb) => db as Kysely<IndexerDatabase>;

function byOrg<T extends { orgId: string }>(items: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const org = item.orgId.toLowerCase();
    groups.set(org, [...(groups.get(org) ?? []), item]);
  }
  return groups;
}

/** The recorded version of each given source (keyed by sourceKeyOf), read as each source's own tenant. */
export async function readRecorded(db: AnyDb, sources: readonly SourceRef[]): Promise<Map<string, Version>> {
  const recorded = new Map<string, Version>();
  for (const [orgId, refs] of byOrg(sources)) {
    const rows = await withTenant(typed(db), { orgId }, (trx) =>
      trx
        .selectFrom('indexer.indexed_sources')
        .select(['org_id', 'source_table', 'source_id', 'event_id', 'occurred_at', 'deleted_at'])
        .where('org_id', '=', orgId)
        .where(({ eb, refTuple, tuple }) =>
          eb(
            refTuple('source_table', 'source_id'),
            'in',
            refs.map((r) => tuple(r.sourceTable, r.sourceId)),
          ),
        )
        .execute(),
    );
    for (const row of rows) {
      recorded.set(
        sourceKeyOf({ orgId: row.org_id, sourceTable: row.source_table, sourceId: row.source_id }),
        versionOf({ occurredAt: row.occurred_at, eventId: row.event_id, deleted: row.deleted_at !== null }),
      );
    }
  }
  return recorded;
}

/**
 * Record the versions now in the indexes, one transaction per org (as that tenant). A row never
 * moves backwards: when a newer version is already recorded (a concurrent indexer), the older
 * one is not written over it; the same version is written again (a repair refreshes it). A
 * tombstone (deleted_at) replaces any creation and is never replaced itself.
 */
export async function recordIndexed(db: AnyDb, rows: readonly IndexedSourceRow[]): Promise<void> {
  for (const [orgId, group] of byOrg(rows.map((r) => ({ ...r, orgId: r.org_id })))) {
    await withTenant(typed(db), { orgId }, (trx) =>
      trx
        .insertInto('indexer.indexed_sources')
        .values(group.map(({ orgId: _orgId, ...row }) => row))
        .onConflict((oc) =>
          oc
            .columns(['org_id', 'source_table', 'source_id'])
            .doUpdateSet((eb) => ({
              event_id: eb.ref('excluded.event_id'),
              occurred_at: eb.ref('excluded.occurred_at'),
              text_sha256: eb.ref('excluded.text_sha256'),
              chunk_count: eb.ref('excluded.chunk_count'),
              embedder: eb.ref('excluded.embedder'),
              indexed_at: sql<Date>`now()`,
              deleted_at: eb.ref('excluded.deleted_at'),
            }))
            .where(
              sql<boolean>`indexer.indexed_sources.deleted_at is null and (excluded.deleted_at is not null or (indexer.indexed_sources.occurred_at, indexer.indexed_sources.event_id) <= (excluded.occurred_at, excluded.event_id))`,
            ),
        )
        .execute(),
    );
  }
}
