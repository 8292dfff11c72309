import type { Progress } from './measure.js';
import type { Results } from './report.js';
import type { BenchSystem } from './system.js';

/** How much each run measures; every loop is bounded by a count and a time. */
export interface BenchSizes {
  /** p1: sequential rounds (each round calls every compared target once)… */
  latencyRounds: number;
  /** …and at most this long per latency measurement. */
  latencyMaxSeconds: number;
  /** p2: concurrent clients, one time-bounded run per level and system. */
  clients: readonly number[];
  /** p2: length of each run. */
  loadSeconds: number;
  /** Steps per plan loaded for the get_next_step+submit_step_result pairs. */
  stepsPerPlan: number;
  /** Calls per target before measuring (JIT, pools, caches). */
  warmupCalls: number;
  /** Content pipeline: store_research → visible in search_sources, sequential samples. */
  freshnessSamples: number;
  /** Artifacts stored and indexed per ingest run (one run, and one metric, per count). */
  ingestCounts: readonly number[];
  /** Corpus sizes in chunks at which search latency is measured (loaded cumulatively, smallest first). */
  searchChunkCounts: readonly number[];
  /** Queries per search latency measurement (a mix of shapes, see mixedQueries). */
  searchQueries: number;
  /** Retrieval quality on Cranfield: 1400 abstracts through store_research, 225 queries (≈ 1.5 minutes on 2 cores). */
  cranfield: boolean;
  /** p6: chunks stored into `quarry start` before its memory is measured with them indexed. */
  memoryChunks: number;
  /** extract_data latency rounds (heuristic provider; each round also runs the in-process baseline). */
  extractionCalls: number;
  /** `--gateway-cpu`: calls measured per gateway variant and round, rounds, and calls before each measurement. */
  gatewayCpu: { calls: number; rounds: number; warmupCalls: number };
  /** Topology CPU: calls measured per topology and round, rounds, and calls before each measurement. */
  topologyCpu: { calls: number; rounds: number; warmupCalls: number };
  /** `--audit`: entries in the one org's audit chain that is loaded, then verified. */
  auditRows: number;
  /** Pages of the generated PDF whose conversion is measured (documents phase). */
  documentPages: number;
  /** `--graph`: the entity graph loaded (entities, relations attempted) and the get_entity_graph calls timed. */
  graph: { entities: number; relations: number; queries: number };
  /** The web app's pages: artifacts in the org, steps of the plan, and reads of each page measured. */
  pages: { artifacts: number; planSteps: number; samples: number };
}

const CONTENT = {
  full: {
    freshnessSamples: 200,
    ingestCounts: [1_000, 10_000],
    searchChunkCounts: [10_000, 100_000],
    searchQueries: 400,
    cranfield: true,
    extractionCalls: 400,
    memoryChunks: 100_000,
    documentPages: 1_000,
  },
  // Quick: ≤ 2 minutes for iterating; Cranfield quality (1.5 minutes alone) only in the full run.
  quick: {
    freshnessSamples: 20,
    ingestCounts: [300],
    searchChunkCounts: [5_000],
    searchQueries: 100,
    cranfield: false,
    extractionCalls: 100,
    memoryChunks: 5_000,
    documentPages: 1_000,
  },
  // Smoke: every content row but quality, on toy sizes (a few seconds inside `npm test`).
  smoke: {
    freshnessSamples: 5,
    ingestCounts: [40],
    searchChunkCounts: [500],
    searchQueries: 20,
    cranfield: false,
    extractionCalls: 10,
    memoryChunks: 300,
    documentPages: 50,
  },
} as const;

/** The full run, `--quick`, and a seconds-long smoke run. */
export const SIZES = {
  full: {
    latencyRounds: 2_000,
    latencyMaxSeconds: 60,
    clients: [16, 32],
    loadSeconds: 10,
    stepsPerPlan: 20,
    warmupCalls: 200,
    gatewayCpu: { calls: 20_000, rounds: 5, warmupCalls: 3_000 },
    topologyCpu: { calls: 10_000, rounds: 3, warmupCalls: 2_000 },
    auditRows: 100_000,
    graph: { entities: 100_000, relations: 500_000, queries: 1_000 },
    pages: { artifacts: 10_000, planSteps: 500, samples: 200 },
    ...CONTENT.full,
  },
  quick: {
    latencyRounds: 200,
    latencyMaxSeconds: 10,
    clients: [16, 32],
    loadSeconds: 2,
    stepsPerPlan: 20,
    warmupCalls: 30,
    gatewayCpu: { calls: 5_000, rounds: 3, warmupCalls: 1_000 },
    topologyCpu: { calls: 3_000, rounds: 2, warmupCalls: 1_000 },
    auditRows: 20_000,
    graph: { entities: 100_000, relations: 500_000, queries: 200 },
    pages: { artifacts: 10_000, planSteps: 500, samples: 50 },
    ...CONTENT.quick,
  },
  // Smoke: long enough windows that even a loaded CI machine completes some pairs (a 1 s window
  // with 32 clients once finished none, giving a non-finite ratio).
  smoke: {
    latencyRounds: 20,
    latencyMaxSeconds: 5,
    clients: [16, 32],
    loadSeconds: 3,
    stepsPerPlan: 10,
    warmupCalls: 5,
    gatewayCpu: { calls: 200, rounds: 1, warmupCalls: 50 },
    topologyCpu: { calls: 200, rounds: 1, warmupCalls: 50 },
    auditRows: 500,
    graph: { entities: 2_000, relations: 10_000, queries: 20 },
    pages: { artifacts: 300, planSteps: 120, samples: 5 },
    ...CONTENT.smoke,
  },
} as const satisfies Record<string, BenchSizes>;

export interface PhaseContext {
  system: BenchSystem;
  sizes: BenchSizes;
  /** A progress line for long phases (stderr in the CLI). */
  progress: Progress;
  /** The Cranfield collection's directory; without it the quality rows are skipped. */
  cranfieldDir?: string;
}

/** One group of metrics measured against the running system; later issues add phases. */
export interface Phase {
  name: string;
  run(context: PhaseContext): Promise<Results>;
}
