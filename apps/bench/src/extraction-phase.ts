import {
  createHeuristicProvider,
  evaluateHeuristic,
  guardSchema,
  loadHeuristicCorpus,
  scoreFields,
  type CorpusDocument,
} from '@quarry/extraction';
import { createMcpCaller } from './mcp.js';
import { interleavedLatency, percentile } from './measure.js';
import type { Phase, PhaseContext } from './phase.js';
import { compared, type Results } from './report.js';

/**
 * Quality of the offline heuristic extractor on its labelled corpus (field-level precision and
 * recall, all documents and the held-out ones it was never tuned on), and what extract_data
 * costs through Quarry (gateway → extraction → artifact-store, stored with its event) against the
 * same heuristic extraction and scoring in process.
 */
async function quality(corpus: readonly CorpusDocument[]): Promise<Results> {
  const report = await evaluateHeuristic(corpus);
  const score = (value: number) => ({ value, unit: 'score' });
  return {
    extraction_heuristic_field_f1: score(report.overall.f1),
    extraction_heuristic_precision: score(report.overall.precision),
    extraction_heuristic_recall: score(report.overall.recall),
    extraction_heuristic_heldout_f1: score(report.heldOut.overall.f1),
    extraction_heuristic_heldout_precision: score(report.heldOut.overall.precision),
    extraction_heuristic_heldout_recall: score(report.heldOut.overall.recall),
    // An honest scorer keeps these apart: mean confidence of right and of wrong values.
    extraction_heuristic_confidence_correct: score(report.meanConfidence.correct),
    extraction_heuristic_confidence_wrong: score(report.meanConfidence.wrong),
  };
}

async function latency(corpus: readonly CorpusDocument[], { system, sizes, progress }: PhaseContext): Promise<Results> {
  const member = await system.createMember('bench-extraction');
  const caller = createMcpCaller(system.quarryUrl, member.token);
  const provider = createHeuristicProvider();
  const documents = corpus.filter((d) => !d.heldOut);
  const guarded = await Promise.all(documents.map((d) => guardSchema(d.schema)));
  let quarryIndex = 0;
  let baselineIndex = 0;
  try {
    progress(`extract_data: ${sizes.extractionCalls} rounds over ${documents.length} corpus documents`);
    const samples = await interleavedLatency(
      {
        quarry: async () => {
          const document = documents[quarryIndex++ % documents.length]!;
          await caller.call('extract_data', {
            mode: 'offline',
            sourceText: document.text,
            extractionSchema: document.schema,
          });
        },
        baseline: async () => {
          const i = baselineIndex++ % documents.length;
          const document = documents[i]!;
          const answer = await provider.extract({ schema: document.schema, sourceText: document.text });
          const validation = guarded[i]!.validate(answer.data);
          scoreFields(
            answer.data,
            document.schema,
            document.text,
            answer.fieldConfidences,
            validation.valid ? [] : validation.paths,
          );
        },
      },
      { count: sizes.extractionCalls, maxMs: sizes.latencyMaxSeconds * 1000 },
      progress,
    );
    return {
      extraction_extract_p50_ms: compared(percentile(samples.quarry, 50), percentile(samples.baseline, 50), 'ms'),
      extraction_extract_p95_ms: compared(percentile(samples.quarry, 95), percentile(samples.baseline, 95), 'ms'),
    };
  } finally {
    caller.close();
  }
}

/** The extraction benchmarks: the heuristic extractor's measured quality and extract_data's latency. */
export const extractionPhase: Phase = {
  name: 'extraction',
  async run(context) {
    const corpus = await loadHeuristicCorpus();
    return { ...(await quality(corpus)), ...(await latency(corpus, context)) };
  },
};
