import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { profiled } from './cpu-profile.js';
import type { Progress } from './measure.js';
import type { BenchSizes, Phase } from './phase.js';
import { contentPipelinePhase } from './content-phase.js';
import { documentsPhase } from './documents-phase.js';
import { extractionPhase } from './extraction-phase.js';
import { flagsPhase } from './flags-phase.js';
import { memoryPhase } from './memory-phase.js';
import { pagesPhase } from './pages-phase.js';
import { planToolsPhase } from './plan-phase.js';
import type { Results } from './report.js';
import { startBenchSystem } from './system.js';
import { topologyCpuPhase } from './topology-cpu-phase.js';

/** Every phase `npm run bench` runs, in order. */
export const PHASES: readonly Phase[] = [
  planToolsPhase,
  topologyCpuPhase,
  contentPipelinePhase,
  extractionPhase,
  documentsPhase,
  pagesPhase,
  flagsPhase,
  memoryPhase,
];

export interface RunOptions {
  sizes: BenchSizes;
  progress?: Progress;
  phases?: readonly Phase[];
  /** The Cranfield collection's directory (quality rows); none = skipped. */
  cranfieldDir?: string;
  /** Write a CPU profile of each phase into this directory (`--profile`). */
  profileDir?: string;
}

/**
 * One benchmark run: start the system and its baselines on embedded PostgreSQL in a fresh temp
 * directory, run every phase against it, tear everything down, return every figure.
 */
export async function runBench({
  sizes,
  progress = () => {},
  phases = PHASES,
  cranfieldDir,
  profileDir,
}: RunOptions): Promise<Results> {
  const dir = mkdtempSync(join(tmpdir(), 'quarry-bench-'));
  // The embedded server runs as an unprivileged OS user when we are root: let it traverse.
  chmodSync(dir, 0o711);
  try {
    progress('starting embedded PostgreSQL, Quarry and the monolith baseline');
    const system = await startBenchSystem({ dataDir: join(dir, 'postgres'), searchDir: dir });
    try {
      const results: Results = {};
      for (const phase of phases) {
        const run = () =>
          phase.run({ system, sizes, cranfieldDir, progress: (line) => progress(`${phase.name}: ${line}`) });
        Object.assign(results, await profiled(profileDir, phase.name, run));
      }
      return results;
    } finally {
      await system.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
