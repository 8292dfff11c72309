import type { ChunkHit, SearchBackends, SearchScope } from '@quarry/search-index';
import { percentile } from './measure.js';
import { compared, type Results } from './report.js';

/**
 * What the embedded (LanceDB) indexes add to the ports, looked up by shape so that other
 * engines (which keep their own indexes up to date) simply report nothing here.
 */
interface Upkeep {
  idle(): Promise<void>;
  unindexedRows(): Promise<number>;
}
interface ExactVectors {
  searchExact(vector: number[], scope: SearchScope): Promise<ChunkHit[]>;
  ann(): { partitions: number; probes: number } | undefined;
}

const hasUpkeep = (index: unknown): index is Upkeep =>
  typeof (index as Partial<Upkeep>).idle === 'function' &&
  typeof (index as Partial<Upkeep>).unindexedRows === 'function';

/**
 * Right after a bulk load: how many rows the BM25 index has not folded in yet (searched flat,
 * they slow every keyword query), then how long until the background folds (and the vector
 * table's ANN training) are done, without asking for them: the lag the upkeep leaves.
 */
export async function settleIndexes(
  backends: Pick<SearchBackends, 'bm25' | 'vectors'>,
  label: string,
): Promise<Results> {
  const { bm25, vectors } = backends;
  if (!hasUpkeep(bm25) || !hasUpkeep(vectors)) return {};
  const tail = await bm25.unindexedRows();
  const started = performance.now();
  await Promise.all([bm25.idle(), vectors.idle()]);
  return {
    [`p4_fts_tail_${label}_rows`]: { value: tail, unit: 'rows' },
    [`p4_upkeep_${label}_s`]: { value: (performance.now() - started) / 1000, unit: 's' },
    [`p4_fts_tail_settled_${label}_rows`]: { value: await bm25.unindexedRows(), unit: 'rows' },
  };
}

/**
 * The vector leg through its ANN index against the exact scan, query by query (limit 10, the
 * same org): recall@10, and each one's latency. Ties count: the bench corpus repeats its texts,
 * so many chunks share a distance and "the" exact top 10 is one of many equally right answers;
 * an ANN hit counts when it is at least as near as the exact 10th.
 */
export async function vectorRecall(
  backends: Pick<SearchBackends, 'vectors' | 'embedder'>,
  orgId: string,
  queries: readonly string[],
  label: string,
): Promise<Results> {
  const { vectors } = backends;
  const lance = vectors as unknown as Partial<ExactVectors>;
  if (typeof lance.searchExact !== 'function' || typeof lance.ann !== 'function') return {};
  const scope = { orgId, limit: 10 };
  const annMs: number[] = [];
  const exactMs: number[] = [];
  let found = 0;
  let wanted = 0;
  for (const vector of await backends.embedder.embed(queries)) {
    let began = performance.now();
    const exact = await lance.searchExact(vector, scope);
    exactMs.push(performance.now() - began);
    began = performance.now();
    const approximate = await vectors.search(vector, scope);
    annMs.push(performance.now() - began);
    if (exact.length === 0) continue;
    const tenth = exact.at(-1)!.score;
    wanted += exact.length;
    found += approximate.filter((h) => h.score >= tenth - 1e-6).length;
  }
  const ann = lance.ann();
  return {
    [`p4_vector_recall10_${label}`]: { value: wanted === 0 ? 1 : found / wanted, unit: 'score' },
    // 0 partitions: no ANN index (yet), the leg scans exactly.
    [`p4_vector_partitions_${label}`]: { value: ann?.partitions ?? 0, unit: 'partitions' },
    [`p4_vector_probes_${label}`]: { value: ann?.probes ?? 0, unit: 'partitions' },
    // Against the exact scan of the same query.
    [`p4_vector_${label}_p95_ms`]: compared(percentile(annMs, 95), percentile(exactMs, 95), 'ms'),
  };
}

/** Resident memory of this process (Quarry's services and engines run inside it; PostgreSQL apart). */
export function residentMb(): number {
  return process.memoryUsage().rss / 2 ** 20;
}
