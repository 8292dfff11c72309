// @quarry/bench: `npm run bench` measures the running system against baselines started in the
// same run (so ratios hold on a noisy machine) and prints one table. Phases add metric groups;
// the plan tools phase (issue 3) prices the gRPC hop against a monolith baseline, the content
// pipeline phase (issue 4) times freshness, ingest and search and scores retrieval on Cranfield.
export { benchCli, type BenchIo } from './cli.js';
export { runBench, PHASES, type RunOptions } from './run.js';
export { SIZES, type BenchSizes, type Phase, type PhaseContext } from './phase.js';
export { planToolsPhase } from './plan-phase.js';
export { contentPipelinePhase, sizeLabel } from './content-phase.js';
export { extractionPhase } from './extraction-phase.js';
export { memoryPhase } from './memory-phase.js';
export { ECHO_ARGS, startHandRolledEcho, startNaiveMcpServer, type Baseline } from './baselines.js';
export { cranfieldDir, loadCranfield, ndcgAt10, recallAt100, type Cranfield } from './cranfield.js';
export { letterMarker, mixedQueries, syntheticCorpus } from './corpus.js';
export { startBenchSystem, type BenchMember, type BenchSystem } from './system.js';
export { inProcessPlanBackend } from './monolith.js';
export {
  createMcpCaller,
  mcpHeaders,
  toolCallBody,
  toolCallRequest,
  toolOutput,
  MCP_PROTOCOL_VERSION,
  type McpCaller,
  type ToolOutput,
} from './mcp.js';
export {
  interleavedLatency,
  percentile,
  startLoad,
  type Bounds,
  type LoadOptions,
  type LoadResult,
  type Progress,
} from './measure.js';
export { compared, formatTable, type Metric, type Results } from './report.js';
