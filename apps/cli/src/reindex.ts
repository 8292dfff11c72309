import { countIndexableSources, indexableSources } from '@quarry/artifact-store';
import { loadConfig } from '@quarry/config';
import { createDb, sql, withTenant, type AnyDb } from '@quarry/db';
import { CONTENT_CREATED_TOPIC, isConsumerActive, advanceConsumer, outboxHead } from '@quarry/events';
import { createIndexHandler, INDEXER_CONSUMER } from '@quarry/indexer';
import { dropSearchIndexes, openSearchBackends, searchBackendsConfigSchema } from '@quarry/search-index';
import { createLogger } from '@quarry/telemetry';

export interface ReindexOptions {
  adminUrl: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The data directory (`.quarry`), where the embedded indexes live. */
  dataDir: string;
  out: (line: string) => void;
  /** Progress line interval. Default 2 s. */
  progressEveryMs?: number;
  /** Sources per indexing batch (one embed call each). Default 100, the indexer's default batch. */
  batchSize?: number;
}

export interface ReindexResult {
  orgs: number;
  /** Sources now in the indexes. */
  sources: number;
  /** Rows with nothing to index (blank text). */
  skipped: number;
  chunks: number;
  ms: number;
}

/**
 * Every org that has stored sources or indexed_sources rows. The admin reads the orgs table and,
 * when row level security does not bind it (a superuser), the source tables' own org ids too:
 * under FORCE it sees none of their rows and the orgs table is the list.
 */
async function orgsToReindex(admin: AnyDb): Promise<string[]> {
  const { rows } = await sql<{ org_id: string }>`
    select id::text as org_id from identity.organizations
    union select org_id::text from artifact.research_artifacts
    union select org_id::text from artifact.research_outputs
    union select org_id::text from artifact.extraction_results
    union select org_id::text from indexer.indexed_sources
    order by 1`.execute(admin);
  return rows.map((r) => r.org_id);
}

/**
 * `quarry reindex`: the indexes are derived data and the source tables are the truth, so a
 * rebuild is: refuse while an indexer runs, note the outbox's newest event, drop both indexes,
 * forget what was indexed (keeping deletion tombstones), and feed every stored artifact,
 * deliverable and extraction result — as the content.created event its row stands for today —
 * through the indexer's own batch handler with the embedder configured now. The indexer's
 * offset then moves to the noted event: what was written during the rebuild is delivered by the
 * log as usual. Nothing depends on the outbox still holding old events (it is compacted).
 * Works the same for the embedded indexes and for OpenSearch/Qdrant.
 */
export async function reindex({
  adminUrl,
  env,
  dataDir,
  out,
  progressEveryMs = 2_000,
  batchSize = 100,
}: ReindexOptions): Promise<ReindexResult> {
  const began = performance.now();
  const config = loadConfig(searchBackendsConfigSchema, { ...env, QUARRY_DATA_DIR: dataDir });
  const admin = createDb<unknown>({ connectionString: adminUrl, applicationName: 'quarry-reindex', max: 2 });
  try {
    if (await isConsumerActive(admin, INDEXER_CONSUMER)) {
      throw new Error(
        'The indexer is running (`quarry start` or an indexer deployment): stop it, then run `quarry reindex` again.',
      );
    }
    // Before reading any source: whatever commits later is both in the tables and after this event.
    const head = await outboxHead(admin);
    const orgs = await orgsToReindex(admin);
    let total = 0;
    for (const orgId of orgs) total += await countIndexableSources(admin, orgId);
    out(`Reindexing ${total} stored source(s) of ${orgs.length} org(s) from the source tables…`);

    await dropSearchIndexes(config);
    const backends = await openSearchBackends(config);
    const result: ReindexResult = { orgs: orgs.length, sources: 0, skipped: 0, chunks: 0, ms: 0 };
    try {
      const handle = createIndexHandler({
        db: admin,
        backends,
        logger: createLogger({ service: 'reindex', level: 'warn' }),
      });
      let read = 0;
      let last = performance.now();
      for (const orgId of orgs) {
        // Tombstones stay: a content.created of a deleted source that the log delivers later stays stale.
        await withTenant(admin, { orgId }, (trx) =>
          sql`delete from indexer.indexed_sources where org_id = ${orgId} and deleted_at is null`.execute(trx),
        );
        // Pages of one table at a time, each one indexer batch.
        for await (const page of indexableSources(admin, orgId, batchSize)) {
          const report = await handle(
            page.events.map((event) => ({ offset: '0', topic: CONTENT_CREATED_TOPIC, key: orgId, headers: {}, event })),
          );
          result.sources += report.indexed + report.unchanged;
          result.chunks += report.chunksWritten;
          result.skipped += page.skipped;
          read += page.events.length + page.skipped;
          if (performance.now() - last >= progressEveryMs) {
            out(`  ${read} of ${total} source(s) read, ${result.sources} indexed`);
            last = performance.now();
          }
        }
      }
      await backends.settle();
    } finally {
      await backends.close();
    }
    const moved = await advanceConsumer(admin, INDEXER_CONSUMER, head);
    result.ms = Math.round(performance.now() - began);
    out(
      `Reindexed ${result.sources} source(s) (${result.chunks} chunk(s)${result.skipped ? `, ${result.skipped} with no text` : ''}) in ${(result.ms / 1000).toFixed(1)} s with embedder ${backends.describe.embedder} (BM25: ${backends.describe.bm25}, vectors: ${backends.describe.vectors}).`,
    );
    if (moved) out('The indexer resumes with the events stored since the rebuild began.');
    return result;
  } finally {
    await admin.destroy();
  }
}
