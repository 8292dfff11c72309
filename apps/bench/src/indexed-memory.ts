import { prepareSource } from '@quarry/search-index';
import { storeBatched, type Artifact } from './content-loads.js';
import { digestTexts, letterMarker, mixedQueries } from './corpus.js';
import type { Cranfield } from './cranfield.js';
import type { McpCaller } from './mcp.js';
import type { Progress } from './measure.js';
import { peakMemoryDuring } from './process-memory.js';
import { sizeLabel } from './content-phase.js';
import type { Results } from './report.js';
import { untilFound } from './waits.js';

/** Words per stored source: ≈ 30 chunks each, so 100k chunks are ≈ 3,300 artifacts of ≈ 50 kB. */
const SOURCE_WORDS = 8_000;
/** Artifacts per store_research_batch call: ≈ 0.5 MB, well under the gateway's body limit. */
const BATCH_ITEMS = 10;
/** search_sources calls after the load, one at a time. */
const SEARCHES = 100;

/**
 * The memory of a running `quarry start` once it holds `chunks` chunks: long sources stored
 * through MCP (store_research_batch, the real path: PostgreSQL, outbox, indexer, both embedded
 * indexes), waited for until the last one is searchable and the indexes' background upkeep is
 * over, then searched. Reports the peak over the searches (`p6_rss_<n>_mb`, Quarry's processes
 * as PSS, PostgreSQL apart) and the peak while loading.
 */
export async function indexedMemory(options: {
  caller: McpCaller;
  root: number;
  chunks: number;
  docs: Cranfield['docs'];
  queries: Cranfield['queries'];
  progress: Progress;
}): Promise<Results> {
  const { caller, root, chunks, progress } = options;
  const label = sizeLabel(chunks);
  const artifacts = sourcesOf(digestTexts(options.docs, SOURCE_WORDS), chunks);
  progress(`storing ${artifacts.length} sources (${chunks} chunks) through store_research_batch`);
  const started = performance.now();
  const loading = await peakMemoryDuring(root, async () => {
    const ids = await storeBatched(caller, artifacts, { batchItems: BATCH_ITEMS, send: storeOnce });
    await untilFound(caller, artifacts.at(-1)!.marker, ids.at(-1)!, 20 * 60_000);
    // The background folds (and the vector index's training) run after the last write: let them
    // finish (≈ 30 s at 100k chunks on 2 cores), so that searches meet the indexes they will use.
    await new Promise((resolve) => setTimeout(resolve, Math.min(30_000, chunks * 0.3)));
  });
  progress(`${chunks} chunks stored and searchable after ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const queries = mixedQueries(options.queries, SEARCHES);
  const searching = await peakMemoryDuring(root, async () => {
    let found = 0;
    for (const query of queries)
      found += Number((await caller.call('search_sources', { query, limit: 10 })).resultCount);
    return found;
  });
  if (searching.result === 0) throw new Error(`memory: ${SEARCHES} searches over ${chunks} chunks found nothing`);
  return {
    [`p6_rss_${label}_mb`]: { value: searching.peak.quarry, unit: 'MB' },
    [`p6_rss_${label}_loading_mb`]: { value: loading.peak.quarry, unit: 'MB' },
    [`p6_postgres_rss_${label}_mb`]: { value: searching.peak.postgres, unit: 'MB' },
  };
}

type Source = Artifact & { marker: string };

/** Sources cycled from `texts`, each with a marker word of its own, until they hold `chunks` chunks. */
function sourcesOf(texts: readonly string[], chunks: number): Source[] {
  const sources: Source[] = [];
  for (let total = 0, n = 0; total < chunks; n++) {
    const marker = letterMarker('qmem', n);
    const contentText = `${texts[n % texts.length]!}\n\n${marker}`;
    const title = `Memory digest ${n + 1}`;
    const prepared = prepareSource(
      { orgId: 'count', sourceTable: 'research_artifact', sourceId: marker, title, artifactType: 'summary' },
      contentText,
    );
    total += prepared.chunks.length;
    sources.push({ title, text: contentText, content: { marker }, marker });
  }
  return sources;
}

/**
 * One store_research_batch call, tried again (up to 3 times) on an error the tool marks retryable:
 * on a busy 2-core machine a call of ≈ 0.5 MB can outlast the gateway's deadline. A retried batch
 * that had been stored after all is stored twice: at most a few hundred chunks more.
 */
async function storeOnce(caller: McpCaller, items: readonly object[]) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await caller.call('store_research_batch', { artifacts: items });
    } catch (error) {
      if (attempt >= 3 || !(error as Error).message.includes('"retryable":true')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}
