import { loadConfig } from '@quarry/config';
import { createDb, sql } from '@quarry/db';
import { consumerLag, isConsumerActive, rewindConsumer } from '@quarry/events';
import { INDEXER_CONSUMER, startIndexer } from '@quarry/indexer';
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
}

/**
 * `quarry reindex`: the indexes are derived data, the outbox keeps every content event, so a
 * rebuild is: refuse while an indexer runs, drop both indexes, forget what was indexed, rewind
 * the indexer's offset to the start, and replay every event through the same indexer code with
 * the embedder configured now. Works the same for the embedded indexes and for OpenSearch/Qdrant.
 */
export async function reindex({
  adminUrl,
  env,
  dataDir,
  out,
  progressEveryMs = 2_000,
}: ReindexOptions): Promise<{ events: number; ms: number }> {
  const began = performance.now();
  const config = loadConfig(searchBackendsConfigSchema, { ...env, QUARRY_DATA_DIR: dataDir });
  const admin = createDb<unknown>({ connectionString: adminUrl, applicationName: 'quarry-reindex', max: 2 });
  try {
    if (await isConsumerActive(admin, INDEXER_CONSUMER)) {
      throw new Error(
        'The indexer is running (`quarry start` or an indexer deployment): stop it, then run `quarry reindex` again.',
      );
    }
    await dropSearchIndexes(config);
    await sql`truncate indexer.indexed_sources`.execute(admin);
    await rewindConsumer(admin, INDEXER_CONSUMER);
    const total = (await consumerLag(admin, INDEXER_CONSUMER)).pending;
    out(`Reindexing ${total} content event(s)…`);

    const backends = await openSearchBackends(config);
    // The admin connection reads the outbox directly (the indexer role's read path is for services).
    const indexer = await startIndexer({
      databaseUrl: adminUrl,
      backends,
      logger: createLogger({ service: 'reindex', level: 'warn' }),
      host: '127.0.0.1',
    });
    try {
      let last = performance.now();
      for (;;) {
        const { pending } = await indexer.lag();
        if (pending === 0) break;
        if (performance.now() - last >= progressEveryMs) {
          out(`  ${total - pending} of ${total} event(s) indexed`);
          last = performance.now();
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await indexer.close();
      await backends.close();
    }
    const ms = Math.round(performance.now() - began);
    out(
      `Reindexed ${total} event(s) in ${(ms / 1000).toFixed(1)} s with embedder ${backends.describe.embedder} (BM25: ${backends.describe.bm25}, vectors: ${backends.describe.vectors}).`,
    );
    return { events: total, ms };
  } finally {
    await admin.destroy();
  }
}
