import { searchLatency, sizeLabel } from './content-phase.js';
import { loadCranfield } from './cranfield.js';
import { syntheticCorpus, textDocs } from './corpus.js';
import type { Phase } from './phase.js';

/** `--scale`: the corpus sizes measured, cumulatively (each load goes on from the previous one). */
export const SCALES = { '100k': [10_000, 100_000], '1m': [100_000, 1_000_000] } as const;

/**
 * `npm run bench -- --scale 1m`: only the search rows (p4), at sizes beyond the full run's. The
 * corpus is written straight into the indexes in process (chunk, embed, upsertMany, as the
 * indexer core does), not stored through MCP: at 1M chunks that load alone takes the better part
 * of an hour on 2 cores, and it is the search that is measured.
 */
export function searchScalePhase(scale: keyof typeof SCALES): Phase {
  const counts = SCALES[scale];
  return {
    name: `search at ${scale} chunks`,
    async run(context) {
      const cranfield = loadCranfield(context.cranfieldDir);
      const data = 'data' in cranfield ? cranfield.data : syntheticCorpus();
      const sizes = { ...context.sizes, searchChunkCounts: counts };
      const results = await searchLatency({ ...context, sizes }, textDocs(data.docs), data.queries);
      const largest = sizeLabel(Math.max(...counts));
      results.p4_search_p50_ms = results[`p4_search_${largest}_p50_ms`]!;
      results.p4_search_p95_ms = results[`p4_search_${largest}_p95_ms`]!;
      if (results[`p4_vector_recall10_${largest}`])
        results.p4_vector_recall10 = results[`p4_vector_recall10_${largest}`]!;
      return results;
    },
  };
}
