// @quarry/bench: `npm run bench` measures the running system against baselines started in the
// same run (so ratios hold on a noisy machine) and prints one table. Phases add metric groups;
// the plan tools phase prices the gRPC hop against a monolith baseline, the content
// pipeline phase times freshness, ingest and search and scores retrieval on Cranfield.
export { benchCli, type BenchIo } from './cli.js';
export { type RunOptions } from './run.js';
export { SIZES, type BenchSizes, type Phase, type PhaseContext } from './phase.js';
export { sizeLabel } from './content-phase.js';
export { type Baseline } from './baselines.js';
export { cranfieldDir, loadCranfield, ndcgAt10, recallAt100, type Cranfield } from './cranfield.js';
export { letterMarker, mixedQueries, syntheticCorpus } from './corpus.js';
export { type BenchMember, type BenchSystem } from './system.js';
export { type McpCaller, type ToolOutput } from './mcp.js';
export { percentile, type Bounds, type LoadOptions, type LoadResult, type Progress } from './measure.js';
export type { Metric } from './metric.js';
export { formatTable, type Results } from './report.js';
