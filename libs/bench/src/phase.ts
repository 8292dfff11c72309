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
}

/** The full run (~5 minutes on 2 cores), `--quick` (< 2 minutes), and a seconds-long smoke run. */
export const SIZES = {
  full: { latencyRounds: 2_000, latencyMaxSeconds: 60, clients: [16, 32], loadSeconds: 10, stepsPerPlan: 20, warmupCalls: 200 },
  quick: { latencyRounds: 300, latencyMaxSeconds: 15, clients: [16, 32], loadSeconds: 3, stepsPerPlan: 20, warmupCalls: 50 },
  // Smoke: long enough windows that even a loaded CI machine completes some pairs (a 1 s window
  // with 32 clients once finished none, giving a non-finite ratio).
  smoke: { latencyRounds: 20, latencyMaxSeconds: 5, clients: [16, 32], loadSeconds: 3, stepsPerPlan: 10, warmupCalls: 5 },
} as const satisfies Record<string, BenchSizes>;

export interface PhaseContext {
  system: BenchSystem;
  sizes: BenchSizes;
  /** A progress line for long phases (stderr in the CLI). */
  progress: Progress;
}

/** One group of metrics measured against the running system; later issues add phases. */
export interface Phase {
  name: string;
  run(context: PhaseContext): Promise<Results>;
}
