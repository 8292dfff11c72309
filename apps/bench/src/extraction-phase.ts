import {
  calibrateGrounding,
  calibrateOffline,
  createHeuristicProvider,
  loadAbstracts,
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

/**
 * Calibration on research abstracts in prose (corpus/abstracts.json): the offline extractor's
 * precision and recall (all and the held-out abstracts never tuned on, and per field type), and how
 * well its confidence separates right from wrong values (mean confidence of each, AUROC, and how
 * many wrong values those rest on); and grounding alone on labelled answers with planted errors
 * (altered, swapped between fields, invented), as a client's model's answer is scored.
 */
async function calibration(): Promise<Results> {
  const documents = await loadAbstracts();
  const offline = calibrateOffline(documents);
  const grounding = calibrateGrounding(documents);
  const score = (value: number) => ({ value, unit: 'score' });
  const values = (value: number) => ({ value, unit: 'values' });
  const results: Results = {
    extraction_offline_precision: score(offline.all.precision),
    extraction_offline_recall: score(offline.all.recall),
    extraction_offline_heldout_precision: score(offline.heldOut.precision),
    extraction_offline_heldout_recall: score(offline.heldOut.recall),
    extraction_offline_right_values: values(offline.all.right),
    extraction_offline_wrong_values: values(offline.all.wrong),
    extraction_offline_confidence_right: score(offline.all.meanRightConfidence),
    extraction_offline_confidence_wrong: score(offline.all.meanWrongConfidence),
    extraction_offline_auroc: score(offline.all.auroc),
    extraction_offline_heldout_wrong_values: values(offline.heldOut.wrong),
    extraction_offline_heldout_confidence_wrong: score(offline.heldOut.meanWrongConfidence),
    extraction_offline_heldout_auroc: score(offline.heldOut.auroc),
    extraction_grounding_confidence_right: score(grounding.all.meanRightConfidence),
    extraction_grounding_confidence_wrong: score(grounding.all.meanWrongConfidence),
    extraction_grounding_auroc: score(grounding.all.auroc),
    extraction_grounding_heldout_confidence_wrong: score(grounding.heldOut.meanWrongConfidence),
    extraction_grounding_heldout_auroc: score(grounding.heldOut.auroc),
    extraction_grounding_auroc_altered: score(grounding.byError.altered),
    extraction_grounding_auroc_swapped: score(grounding.byError.swapped),
    extraction_grounding_auroc_invented: score(grounding.byError.invented),
  };
  for (const [kind, figures] of Object.entries(offline.byKind)) {
    const name = kind.replace(/\W+/g, '_');
    results[`extraction_offline_${name}_precision`] = score(figures.precision);
    results[`extraction_offline_${name}_recall`] = score(figures.recall);
  }
  return results;
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

/** The extraction benchmarks: the offline extractor's quality, calibration of confidence, and extract_data's latency. */
export const extractionPhase: Phase = {
  name: 'extraction',
  async run(context) {
    const corpus = await loadHeuristicCorpus();
    return { ...(await quality(corpus)), ...(await calibration()), ...(await latency(corpus, context)) };
  },
};
