import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { openLanceBm25Index, openLanceVectorIndex, prepareSource, type ChunkVectors } from '@quarry/search-index';
import { buildHybridSearch } from '@quarry/search';
import { type Cranfield, loadCranfield } from './cranfield.js';
import { cranfieldQuality } from './cranfield-quality.js';
import {
  artifactText,
  digestTexts,
  letterMarker,
  mixedQueries,
  searchCorpus,
  syntheticCorpus,
  textDocs,
  upsertBatch,
  VectorMemo,
} from './corpus.js';
import { BATCH_ITEMS, BATCH_WRITERS, storeAll, storeBatched, timedLoad } from './content-loads.js';
import { residentMb, settleIndexes, vectorRecall } from './index-upkeep.js';
import { createMcpCaller } from './mcp.js';
import { interleavedLatency, percentile } from './measure.js';
import type { Phase, PhaseContext } from './phase.js';
import { compared, type Results } from './report.js';
import { untilFound } from './waits.js';

/** Words per source of the search corpus: ≈ 36 chunks each. */
const DIGEST_WORDS = 8_000;
/** Events per batch of the indexer (its default), and so per batch of the ingest baseline. */
const INDEXER_BATCH = 100;
/** Concurrent store_research callers of the ingest load (the single-call throughput figure). */
const INGEST_WRITERS = 32;
/** Queries of the vector leg's recall against the exact scan (each one an exact scan of the whole org). */
const RECALL_QUERIES = 50;

/** 10000 → "10k", 500 → "500": the size in a metric key. */
export function sizeLabel(n: number): string {
  return n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n);
}

const elapsed = (since: number) => performance.now() - since;

/**
 * Freshness: store_research of a text carrying a word of its own, then search_sources for that
 * word (polled every ~5 ms) until the artifact is among the results; sequential samples. The
 * baseline is the store call itself, so the ratio reads "visible after N store-times".
 */
async function freshness({ system, sizes, progress }: PhaseContext, docs: Cranfield['docs']): Promise<Results> {
  const member = await system.createMember('bench-freshness');
  const caller = createMcpCaller(system.quarryUrl, member.token);
  try {
    const visible: number[] = [];
    const stored: number[] = [];
    const warmup = 3;
    progress(`freshness: ${sizes.freshnessSamples} samples (+${warmup} warm-up)`);
    for (let i = 0; i < sizes.freshnessSamples + warmup; i++) {
      const marker = letterMarker('qfresh', i);
      const started = performance.now();
      const { id } = await caller.call('store_research', {
        artifactType: 'finding',
        title: `Freshness probe ${i + 1}`,
        content: { probe: i },
        contentText: `${docs[i % docs.length]!.text}\n\n${marker}`,
      });
      const storeMs = elapsed(started);
      await untilFound(caller, marker, id as string);
      if (i >= warmup) {
        stored.push(storeMs);
        visible.push(elapsed(started));
      }
    }
    return {
      p3_freshness_p50_ms: compared(percentile(visible, 50), percentile(stored, 50), 'ms'),
      p3_freshness_p95_ms: compared(percentile(visible, 95), percentile(stored, 95), 'ms'),
    };
  } finally {
    caller.close();
  }
}

/**
 * Ingest: `count` single-abstract artifacts stored by `INGEST_WRITERS` concurrent store_research
 * callers, then the same texts by store_research_batch (`BATCH_WRITERS` callers of
 * `BATCH_ITEMS`), each into its own org, until indexed and searchable. Baseline: the same texts
 * through the indexer's core alone, in process (chunk, embed, one upsertMany per index per
 * batch of 100) into a scratch LanceDB directory: the index-write ceiling.
 */
async function ingest(context: PhaseContext, docs: Cranfield['docs'], count: number): Promise<Results> {
  const { system, progress } = context;
  const label = sizeLabel(count);
  const artifacts = Array.from({ length: count }, (_, i) => ({ ...artifactText(docs, i), content: { n: i } }));
  progress(`ingest: ${count} artifacts, ${INGEST_WRITERS} MCP writers of store_research, until indexed and searchable`);
  const quarryMs = await timedLoad(context, `bench-ingest-${label}`, artifacts, INGEST_WRITERS, (caller, a) =>
    storeAll(caller, a, INGEST_WRITERS),
  );
  progress(`ingest: ${count} artifacts, ${BATCH_WRITERS} MCP writers of store_research_batch (${BATCH_ITEMS} each)`);
  const batchMs = await timedLoad(context, `bench-ingest-batch-${label}`, artifacts, BATCH_WRITERS, storeBatched);

  progress(`ingest baseline: the same ${count} texts through chunk + embed + upsert, in process`);
  const dir = join(system.scratchDir, `ingest-baseline-${label}`);
  const embedder = system.services.backends.embedder;
  const bm25 = await openLanceBm25Index({ dir });
  const vectors = await openLanceVectorIndex({ dir, embedder: await embedder.identity() });
  try {
    const embed: ChunkVectors = (chunks) => embedder.embed(chunks.map((c) => c.text));
    const orgId = randomUUID();
    const began = performance.now();
    for (let i = 0; i < artifacts.length; i += INDEXER_BATCH) {
      const batch = artifacts.slice(i, i + INDEXER_BATCH);
      const sources = batch.map((a) =>
        prepareSource(
          {
            orgId,
            sourceTable: 'research_artifact',
            sourceId: randomUUID(),
            title: a.title,
            artifactType: 'finding',
          },
          a.text,
        ),
      );
      await upsertBatch({ bm25, vectors }, sources, embed);
    }
    const baselineMs = elapsed(began);
    const perSecond = (ms: number) => count / (ms / 1000);
    return {
      [`p5_ingest_${label}_artifacts_per_s`]: compared(perSecond(quarryMs), perSecond(baselineMs), 'artifacts/s'),
      [`p5_ingest_batch_${label}_artifacts_per_s`]: compared(perSecond(batchMs), perSecond(baselineMs), 'artifacts/s'),
    };
  } finally {
    await bm25.close();
    await vectors.close();
  }
}

/**
 * Search latency at growing corpus sizes: a dedicated org's corpus written straight into the
 * running system's indexes (no events), then search_sources through MCP one query at a time,
 * interleaved with the same query in process (buildHybridSearch on the same backends): the
 * ratio is what the gRPC service and the gateway add.
 */
export async function searchLatency(
  { system, sizes, progress }: PhaseContext,
  docs: Cranfield['docs'],
  queryTexts: Cranfield['queries'],
): Promise<Results> {
  const results: Results = {};
  const { backends } = system.services;
  const member = await system.createMember('bench-search');
  const caller = createMcpCaller(system.quarryUrl, member.token);
  const corpus = searchCorpus(
    backends,
    member.orgId,
    digestTexts(docs, DIGEST_WORDS),
    new VectorMemo(backends.embedder),
    system.registerArtifacts,
  );
  const inProcess = buildHybridSearch(backends);
  const queries = mixedQueries(queryTexts, sizes.searchQueries);
  try {
    let loadMs = 0;
    for (const target of sizes.searchChunkCounts) {
      const label = sizeLabel(target);
      progress(`search: loading ${label} chunks into the indexes`);
      const started = performance.now();
      await corpus.grow(target, progress);
      loadMs += elapsed(started);
      results[`p4_load_${label}_chunks_s`] = { value: loadMs / 1000, unit: 's' };
      // The indexes keep themselves up to date in the background: the tail the load left, and how long until it is folded in.
      Object.assign(results, await settleIndexes(backends, label));
      progress(
        `search: ${corpus.chunks} chunks in ${corpus.sources} sources after ${(loadMs / 1000).toFixed(1)} s (+${results[`p4_upkeep_${label}_s`]?.value.toFixed(1) ?? 0} s upkeep); ${queries.length} queries`,
      );
      Object.assign(results, await vectorRecall(backends, member.orgId, queries.slice(0, RECALL_QUERIES), label));

      // Both must see the corpus (a wrong org would be fast and empty).
      const probe = {
        mcp: await caller.call('search_sources', { query: queries[0]!, limit: 10 }),
        local: await inProcess({ orgId: member.orgId, query: queries[0]!, limit: 10 }),
      };
      if (probe.local.resultCount === 0 || probe.mcp.resultCount !== probe.local.resultCount) {
        throw new Error(
          `search corpus not visible: "${queries[0]}" found ${probe.mcp.resultCount} sources through MCP, ${probe.local.resultCount} in process`,
        );
      }
      let [q, p, w] = [0, 0, 0];
      const mcp = () => caller.call('search_sources', { query: queries[q++ % queries.length]!, limit: 10 });
      const local = () => inProcess({ orgId: member.orgId, query: queries[p++ % queries.length]!, limit: 10 });
      // The BM25 leg alone, through MCP: what the default (hybrid) search costs beyond it.
      const keyword = () =>
        caller.call('search_sources', { query: queries[w++ % queries.length]!, limit: 10, mode: 'keyword' });
      // Warm caches after the load (a few queries: at 100k chunks one takes ≈ 0.2 s).
      for (let i = 0; i < Math.min(sizes.warmupCalls, 10); i++) await Promise.all([mcp(), local(), keyword()]);
      [q, p, w] = [0, 0, 0];
      const samples = await interleavedLatency(
        { mcp, local, keyword },
        { count: queries.length, maxMs: sizes.latencyMaxSeconds * 1000 },
        progress,
      );
      results[`p4_search_${label}_p50_ms`] = compared(percentile(samples.mcp, 50), percentile(samples.local, 50), 'ms');
      results[`p4_search_${label}_p95_ms`] = compared(percentile(samples.mcp, 95), percentile(samples.local, 95), 'ms');
      results[`p4_search_${label}_hybrid_vs_keyword_p95_ms`] = compared(
        percentile(samples.mcp, 95),
        percentile(samples.keyword, 95),
        'ms',
      );
      results[`p4_rss_${label}_mb`] = { value: residentMb(), unit: 'MB' };
      const figure = (key: string) => results[key]?.value.toFixed(3) ?? '-';
      // Each size's figures as they come: a long run stopped early still leaves them.
      progress(
        `search: ${label}: p50 ${figure(`p4_search_${label}_p50_ms`)} ms, p95 ${figure(`p4_search_${label}_p95_ms`)} ms, vector recall@10 ${figure(`p4_vector_recall10_${label}`)}, RSS ${figure(`p4_rss_${label}_mb`)} MB`,
      );
    }
    return results;
  } finally {
    caller.close();
  }
}

/**
 * The content pipeline's benchmarks (store_research → outbox → indexer → BM25 and
 * vector indexes → search_sources) on the embedded engines. Freshness, ingest, search latency at
 * growing corpus sizes and retrieval quality on Cranfield, each against a baseline measured in
 * the same run where one means something.
 */
export const contentPipelinePhase: Phase = {
  name: 'content pipeline',
  async run(context) {
    const { system, sizes, progress } = context;
    const cranfield = loadCranfield(context.cranfieldDir);
    if ('missing' in cranfield)
      progress(`Cranfield: ${cranfield.missing}; loads use synthetic texts and the quality rows are skipped`);
    const data = 'data' in cranfield ? cranfield.data : syntheticCorpus();
    const docs = textDocs(data.docs);

    const results: Results = {};
    Object.assign(results, await freshness(context, docs));
    for (const count of sizes.ingestCounts) Object.assign(results, await ingest(context, docs, count));
    if (!sizes.cranfield)
      progress(
        'quality: skipped in this profile (storing and indexing 1400 abstracts takes minutes); the full run measures it',
      );
    else if ('data' in cranfield) Object.assign(results, await cranfieldQuality(context, cranfield.data));
    Object.assign(results, await searchLatency(context, docs, data.queries));

    // Every load above waited for the indexer; nothing may be left behind.
    const lag = await system.services.indexer.lag();
    results.p5_indexer_pending_end = { value: lag.pending, unit: 'events' };
    // The headline rows (p4_search_*, p5_ingest_*): the largest size measured.
    const largest = (counts: readonly number[]) => sizeLabel(Math.max(...counts));
    results.p4_search_p50_ms = results[`p4_search_${largest(sizes.searchChunkCounts)}_p50_ms`]!;
    results.p4_search_p95_ms = results[`p4_search_${largest(sizes.searchChunkCounts)}_p95_ms`]!;
    const recall = results[`p4_vector_recall10_${largest(sizes.searchChunkCounts)}`];
    if (recall) results.p4_vector_recall10 = recall;
    results.p5_ingest_artifacts_per_s = results[`p5_ingest_${largest(sizes.ingestCounts)}_artifacts_per_s`]!;
    results.p5_ingest_batch_artifacts_per_s =
      results[`p5_ingest_batch_${largest(sizes.ingestCounts)}_artifacts_per_s`]!;
    return results;
  },
};
