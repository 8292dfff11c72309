import {
  assembleVerification,
  evaluateCitations,
  loadCitationSet,
  parseClaims,
  sourcePassages,
  targetKey,
} from '@quarry/extraction';
import { createMcpCaller } from './mcp.js';
import { interleavedLatency, percentile } from './measure.js';
import type { Phase } from './phase.js';
import { compared, type Results } from './report.js';

/**
 * verify_citations (ADR 0060): on the labelled claim–source pairs (services/extraction/corpus/
 * citations.json), whether the sentence that decides a claim is among the passages offered (top
 * 1, 3, 5; all pairs and the held-out ones; and with every other abstract pooled in, as scope
 * "plan" does), and the precision of the model-free checks (flagged claims that are indeed not
 * supported; supported claims flagged, which must be 0). Then what verify_citations costs through
 * Quarry (gateway → extraction → artifact store, reading the cited source and keeping the
 * verification) against the same parsing, ranking and checks in process.
 */
export const citationsPhase: Phase = {
  name: 'citations',
  async run({ system, sizes, progress }) {
    const set = await loadCitationSet();
    const report = evaluateCitations(set);
    const score = (value: number) => ({ value, unit: 'score' });
    const claims = (value: number) => ({ value, unit: 'claims' });
    const results: Results = {
      citations_pairs: claims(report.all.claims),
      citations_recall_at1: score(report.all.recallAt1),
      citations_recall_at3: score(report.all.recallAt3),
      citations_recall_at5: score(report.all.recallAt5),
      citations_heldout_recall_at3: score(report.heldOut.recallAt3),
      citations_heldout_recall_at5: score(report.heldOut.recallAt5),
      citations_pooled_recall_at3: score(report.all.pooledRecallAt3),
      citations_pooled_recall_at5: score(report.all.pooledRecallAt5),
      citations_check_precision: score(report.all.checkPrecision),
      citations_checks_flagged: claims(report.all.flagged),
      citations_checks_supported_flagged: claims(report.all.supportedFlagged),
      citations_checks_planted_caught: score(report.all.labelledFlagsCaught / report.all.labelledFlags),
    };

    const member = await system.createMember('bench-citations');
    const caller = createMcpCaller(system.quarryUrl, member.token);
    try {
      progress(`verify_citations: storing ${set.length} labelled abstracts`);
      const texts: string[] = [];
      const inProcess: Array<() => void> = [];
      for (const c of set) {
        const stored = await caller.call('store_research', {
          artifactType: 'finding',
          title: c.title,
          content: { text: c.source },
          contentText: c.source,
        });
        const id = (stored as { id: string }).id;
        const text = c.claims.map((claim) => `${claim.claim.replace(/\.$/, '')} (quarry://artifacts/${id}).`).join(' ');
        texts.push(text);
        const source = { id, text: c.source, passages: sourcePassages(id, c.source) };
        inProcess.push(() => {
          const parsed = parseClaims(text);
          const resolved = new Map(parsed.flatMap((p) => p.targets).map((t) => [targetKey(t), { source }] as const));
          assembleVerification(parsed, resolved, undefined);
        });
      }
      let quarryIndex = 0;
      let baselineIndex = 0;
      const rounds = Math.max(10, Math.floor(sizes.extractionCalls / 4));
      progress(`verify_citations: ${rounds} rounds`);
      const samples = await interleavedLatency(
        {
          quarry: () => caller.call('verify_citations', { text: texts[quarryIndex++ % texts.length]! }),
          baseline: async () => inProcess[baselineIndex++ % inProcess.length]!(),
        },
        { count: rounds, maxMs: sizes.latencyMaxSeconds * 1000 },
        progress,
      );
      results.citations_verify_p50_ms = compared(
        percentile(samples.quarry, 50),
        percentile(samples.baseline, 50),
        'ms',
      );
      results.citations_verify_p95_ms = compared(
        percentile(samples.quarry, 95),
        percentile(samples.baseline, 95),
        'ms',
      );
    } finally {
      caller.close();
    }
    return results;
  },
};
