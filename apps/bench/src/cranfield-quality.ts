import type { ChunkHit } from '@quarry/search-index';
import { buildHybridSearch, classifyQuery, rankResults, rankSources } from '@quarry/search';
import { storeAll, WRITERS } from './content-loads.js';
import { textDocs } from './corpus.js';
import { type Cranfield, ndcgAt10, recallAt100 } from './cranfield.js';
import { luceneBm25Quality } from './lucene-bm25.js';
import { createMcpCaller } from './mcp.js';
import type { PhaseContext } from './phase.js';
import { compared, type Results } from './report.js';
import { untilIndexed } from './waits.js';

const elapsed = (since: number) => performance.now() - since;

/** A leg's chunk hits, fetched deep enough to rank at least `sources` distinct sources (or all there are). */
async function deepHits(search: (limit: number) => Promise<ChunkHit[]>, sources: number): Promise<ChunkHit[]> {
  for (let limit = sources * 2; ; limit *= 2) {
    const hits = await search(limit);
    if (rankSources(hits).length >= sources || hits.length < limit) return hits;
  }
}

/**
 * Quality on Cranfield, loaded through the real path (store_research over MCP → outbox →
 * indexer → both indexes): nDCG@10 and Recall@100 for BM25 alone, vectors alone and the hybrid
 * (the service's own ranking, `rankResults`, limit 100), the legs run in process on the running system's
 * backends. Also: search_sources through MCP must give the same top 10 as the same search in
 * process, for every query. And all of it against a standard Lucene-style BM25 run over the same
 * documents and queries (lucene-bm25.ts): Quarry's BM25 leg and search_sources should not rank below it.
 */
export async function cranfieldQuality({ system, progress }: PhaseContext, data: Cranfield): Promise<Results> {
  const { backends } = system.services;
  const member = await system.createMember('bench-cranfield');
  const caller = createMcpCaller(system.quarryUrl, member.token, WRITERS);
  try {
    const docs = textDocs(data.docs);
    progress(`quality: storing ${docs.length} Cranfield abstracts through store_research`);
    const started = performance.now();
    const ids = await storeAll(
      caller,
      docs.map((d) => ({ title: d.title.trim() || `Cranfield ${d.id}`, text: d.text, content: { cranfieldId: d.id } })),
    );
    await untilIndexed(system);
    progress(
      `quality: stored and indexed in ${(elapsed(started) / 1000).toFixed(1)} s; ${data.queries.length} queries`,
    );
    const docOf = new Map(ids.map((id, i) => [id, docs[i]!.id]));
    const asDocs = (sourceIds: readonly string[]) => sourceIds.map((id) => docOf.get(id) ?? `unknown:${id}`);

    const scope = (limit: number) => ({ orgId: member.orgId, limit });
    const inProcess = buildHybridSearch(backends);
    const sums = { bm25: { ndcg: 0, recall: 0 }, vectors: { ndcg: 0, recall: 0 }, hybrid: { ndcg: 0, recall: 0 } };
    let agreeing = 0;
    for (const query of data.queries) {
      const relevant = data.qrels.get(query.id) ?? new Map<string, number>();
      const [vector] = await backends.embedder.embed([query.text]);
      const keywordHits = await deepHits((limit) => backends.bm25.search(query.text, scope(limit)), 100);
      const semanticHits = await deepHits((limit) => backends.vectors.search(vector!, scope(limit)), 100);
      const queryType = classifyQuery(query.text);
      const sourceIds = (hits: ChunkHit[]) => rankSources(hits).map((r) => r.hit.sourceId);
      const rankings = {
        bm25: sourceIds(keywordHits),
        vectors: sourceIds(semanticHits),
        hybrid: rankResults(keywordHits, semanticHits, {
          mode: 'hybrid',
          queryType,
          limit: 100,
          embedder: backends.embedder,
        }).map((r) => r.sourceId),
      };
      for (const [mode, ranked] of Object.entries(rankings) as [keyof typeof sums, string[]][]) {
        sums[mode].ndcg += ndcgAt10(asDocs(ranked), relevant);
        sums[mode].recall += recallAt100(asDocs(ranked), relevant);
      }
      const [viaMcp, local] = await Promise.all([
        caller.call('search_sources', { query: query.text, limit: 10 }),
        inProcess({ orgId: member.orgId, query: query.text, limit: 10 }),
      ]);
      const top = (results: readonly { id: string }[]) => results.map((r) => r.id).join(',');
      if (top(viaMcp.results as { id: string }[]) === top(local.results)) agreeing++;
    }
    const n = data.queries.length;
    const mean = (mode: keyof typeof sums, metric: 'ndcg' | 'recall') => sums[mode][metric] / n;
    const lucene = luceneBm25Quality(data);
    return {
      quality_cranfield_ndcg10_bm25: { value: mean('bm25', 'ndcg'), unit: 'score' },
      quality_cranfield_recall100_bm25: { value: mean('bm25', 'recall'), unit: 'score' },
      // Against BM25 alone: does the other leg, or the fusion, add anything?
      quality_cranfield_ndcg10_vector: compared(mean('vectors', 'ndcg'), mean('bm25', 'ndcg'), 'score'),
      quality_cranfield_recall100_vector: compared(mean('vectors', 'recall'), mean('bm25', 'recall'), 'score'),
      quality_cranfield_ndcg10_hybrid: compared(mean('hybrid', 'ndcg'), mean('bm25', 'ndcg'), 'score'),
      quality_cranfield_recall100_hybrid: compared(mean('hybrid', 'recall'), mean('bm25', 'recall'), 'score'),
      quality_cranfield_search_sources_agreement_pct: { value: (100 * agreeing) / n, unit: '%' },
      quality_cranfield_ndcg10_lucene_bm25: { value: lucene.ndcg, unit: 'score' },
      quality_cranfield_recall100_lucene_bm25: { value: lucene.recall, unit: 'score' },
      // Against the Lucene-style run: the BM25 leg alone, then search_sources' own ranking (the hybrid).
      quality_cranfield_ndcg10_bm25_vs_lucene: compared(mean('bm25', 'ndcg'), lucene.ndcg, 'score'),
      quality_cranfield_recall100_bm25_vs_lucene: compared(mean('bm25', 'recall'), lucene.recall, 'score'),
      quality_cranfield_ndcg10_search_sources_vs_lucene: compared(mean('hybrid', 'ndcg'), lucene.ndcg, 'score'),
      quality_cranfield_recall100_search_sources_vs_lucene: compared(mean('hybrid', 'recall'), lucene.recall, 'score'),
    };
  } finally {
    caller.close();
  }
}
