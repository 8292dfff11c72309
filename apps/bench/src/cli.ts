import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { cranfieldDir } from './cranfield.js';
import { type BenchSizes, SIZES } from './phase.js';
import { formatTable } from './report.js';
import { gatewayCpuPhase } from './gateway-cpu-phase.js';
import { PHASES, runBench } from './run.js';
import { memoryPhase } from './memory-phase.js';
import { auditChainPhase } from './audit-chain-phase.js';
import { citationsPhase } from './citations-phase.js';
import { graphPhase } from './graph-phase.js';
import { documentsPhase } from './documents-phase.js';
import { quotasPhase } from './quotas-phase.js';
import { pagesPhase } from './pages-phase.js';
import { flagsPhase } from './flags-phase.js';
import { topologyCpuPhase } from './topology-cpu-phase.js';
import { SCALES, searchScalePhase } from './search-scale-phase.js';

export interface BenchIo {
  /** The table and the machine facts. */
  out: (line: string) => void;
  /** Progress lines. */
  err: (line: string) => void;
}

const USAGE = `Usage: npm run bench -- [--quick] [--json <file>] [--clients 16,32] [--cranfield <dir>] [--gateway-cpu] [--topology-cpu] [--scale 100k|1m] [--memory] [--audit] [--documents] [--citations] [--quotas] [--graph] [--pages] [--flags] [--profile <dir>]
  --quick           smaller sizes, no Cranfield quality (≤ 2 minutes on 2 cores; the full run ≈ 15 minutes)
  --cranfield <dir> the Cranfield collection (corpus.jsonl, queries.jsonl, qrels.tsv) for the retrieval
                    quality rows; default QUARRY_CRANFIELD_DIR; without either, quality is skipped
  --json <file>     also write every figure as { metric: { value, unit, baseline?, ratio? } }
  --clients list    concurrency levels of the throughput runs (default 16,32)
  --gateway-cpu     only the gateway's CPU per tool call by the gRPC client it uses, the gateway in a process
                    of its own (ADR 0022; full: 5 rounds × 20,000 calls per client ≈ 10 minutes)
  --topology-cpu    only the CPU per read call of the Kubernetes topology (gateway and plan engine in processes
                    of their own) against the monolith's (ADR 0040; also part of the full run)
  --scale 100k|1m   only the search rows (p4), at 10k then 100k chunks, or 100k then 1M (loaded in process;
                    1m ≈ 40 minutes on 2 cores)
  --memory          only the memory rows (p6): \`quarry start\` idle, under load, then holding 100k chunks stored
                    through store_research_batch (target p6_rss_100k_mb ≤ 1,024 MB; ≈ 5 minutes on 2 cores)
  --audit           only the audit log rows (ADR 0052): an audit row's insert with and without its hash chain,
                    and \`quarry audit verify\` of one org's chain of 100k entries (quick: 20k)
  --documents       only the document rows: a generated 1,000-page PDF converted by @quarry/documents, pages/s
                    and the converter process's peak memory (ADR 0050; ≈ 1 minute)
  --citations       only the verify_citations rows (ADR 0060): evidence recall@1/3/5 and the model-free checks'
                    precision on the labelled claim–source pairs, and verify_citations' latency (≈ 1 minute)
  --quotas          only the quota isolation rows (ADR 0061): org B's get_plan_status p95 alone and while org A
                    floods at its read quota (target ≤ 1.2× alone; ≈ 2 × the latency bound)
  --graph           only the entity graph rows (ADR 0059): 100k entities and 500k relations bulk-loaded, then
                    get_entity_graph depth 2 through gRPC and MCP, beside its SQL alone (frontier and recursive CTE)
  --pages           only the web app's pages: the plans list, the artifacts list, a plan's page and an artifact's
                    page, p50/p95 over loopback HTTP, signed in, with 10,000 artifacts and a plan of 500 steps
                    (target p95 ≤ 300 ms each; ≈ 1 minute)
  --flags           only the instruction-flag rows: the scanner's precision and recall on its labelled set (held-out
                    and tuning) and its cost per KB of text and of HTML (ADR 0062; seconds)
  --profile <dir>   with any of the above: write a CPU profile of each phase run, <dir>/<phase>.cpuprofile (the
                    bench process, where the one-process gateway and services run; open in Chrome DevTools)`;

/** The focused runs: each of these flags runs its phase alone. */
const FOCUSED = {
  'gateway-cpu': gatewayCpuPhase,
  'topology-cpu': topologyCpuPhase,
  memory: memoryPhase,
  audit: auditChainPhase,
  documents: documentsPhase,
  citations: citationsPhase,
  quotas: quotasPhase,
  graph: graphPhase,
  pages: pagesPhase,
  flags: flagsPhase,
} as const;

/** What each group's baseline is (all measured in the same run, on the same machine). */
const BASELINES = [
  'Baselines (all measured in this run): p1/p2 the monolith (same handlers in the gateway, no gRPC hop); p2_ratio the',
  "MCP SDK's naive server-per-request echo, p2_ratio_handrolled a bare fastify JSON-RPC echo (same transport);",
  'p2_cpu_per_read_call the monolith in a process of its own (Kubernetes topology: gateway + plan engine processes);',
  'p1/p2 *_grpc rows: the same one-process Quarry over loopback gRPC instead of the in-process transport (its A/B);',
  'p2_cpu_per_read_call_one_process: CPU of the bench process (load generator included) per read call, in one process;',
  'p3 freshness the store_research call alone; p4 search the same hybrid search in process (ratio = gRPC + gateway);',
  'p5 ingest the indexer core in process (chunk, embed, upsert); quality vectors/hybrid against BM25 alone;',
  'extraction the same heuristic extraction and scoring in process. p6 = `quarry start` (PostgreSQL apart, as PSS);',
  'p6_rss_100k_mb: holding 100k chunks stored through MCP, while searched (target ≤ 1,024 MB).',
  'documents_pdf_peak_rss_mb: the converter process converting the PDF, against itself idle with the libraries loaded.',
  'pages_*: the web app read over loopback HTTP by a signed-in person (no baseline; target p95 ≤ 300 ms each).',
].join('\n');
const GATEWAY_CPU_BASELINE =
  'Baseline: the gateway as it ships (gateway_cpu_us_per_call); each other row is the same gateway calling the services through another gRPC client.';

/**
 * `npm run bench`: prints one table (and writes the JSON file when asked); returns the exit
 * code. `sizes` overrides the chosen profile (the smoke test runs in seconds this way).
 */
export async function benchCli(argv: readonly string[], io: BenchIo, sizes?: Partial<BenchSizes>): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        quick: { type: 'boolean' },
        json: { type: 'string' },
        clients: { type: 'string' },
        cranfield: { type: 'string' },
        'gateway-cpu': { type: 'boolean' },
        'topology-cpu': { type: 'boolean' },
        scale: { type: 'string' },
        memory: { type: 'boolean' },
        audit: { type: 'boolean' },
        documents: { type: 'boolean' },
        citations: { type: 'boolean' },
        quotas: { type: 'boolean' },
        graph: { type: 'boolean' },
        pages: { type: 'boolean' },
        flags: { type: 'boolean' },
        profile: { type: 'string' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    io.err(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  const clients = values.clients?.split(',').map(Number);
  if (clients && !clients.every((c) => Number.isInteger(c) && c > 0 && c <= 256)) {
    io.err(`--clients takes whole numbers from 1 to 256, e.g. 16,32\n${USAGE}`);
    return 2;
  }
  const scale = values.scale;
  if (scale !== undefined && !Object.hasOwn(SCALES, scale)) {
    io.err(`--scale takes ${Object.keys(SCALES).join(' or ')}\n${USAGE}`);
    return 2;
  }
  const focused = (Object.keys(FOCUSED) as (keyof typeof FOCUSED)[]).find((flag) => values[flag]);
  const chosen: BenchSizes = {
    ...(values.quick ? SIZES.quick : SIZES.full),
    ...(clients ? { clients } : {}),
    ...sizes,
  };

  const cranfield = cranfieldDir(values.cranfield);
  const quality = !chosen.cranfield
    ? 'Retrieval quality: not measured in this profile (the full run measures it).'
    : cranfield
      ? `Retrieval quality: Cranfield from ${cranfield}.`
      : 'Retrieval quality: SKIPPED, no Cranfield collection given (--cranfield DIR or QUARRY_CRANFIELD_DIR).';
  const started = Date.now();
  const results = await runBench({
    sizes: chosen,
    cranfieldDir: cranfield,
    phases: scale ? [searchScalePhase(scale as keyof typeof SCALES)] : focused ? [FOCUSED[focused]] : PHASES,
    progress: (line) => io.err(`[bench ${((Date.now() - started) / 1000).toFixed(0)}s] ${line}`),
    profileDir: values.profile,
  });
  if (values.profile) io.err(`CPU profiles of each phase: ${values.profile}/<phase>.cpuprofile`);
  io.out(
    `Quarry benchmark, ${new Date().toISOString()}: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, ${sizes ? 'custom' : values.quick ? 'quick' : 'full'} run; ratio = Quarry ÷ baseline`,
  );
  io.out(values['gateway-cpu'] ? GATEWAY_CPU_BASELINE : BASELINES);
  if (!values['gateway-cpu'] && !values['topology-cpu']) io.out(quality);
  io.out(formatTable(results));
  if (values.json) {
    writeFileSync(values.json, `${JSON.stringify(results, null, 2)}\n`);
    io.out(`Wrote ${values.json}`);
  }
  return 0;
}
