import { checkClaim } from '../citations/claim-checks.js';
import { rankPassages } from '../citations/passage-ranking.js';
import { type SourcePassage, sourcePassages } from '../citations/source-passages.js';
import type { CitationCase } from './citation-set.js';

/**
 * How verify_citations does on the labelled set, without a model: whether the sentence that
 * decides each claim is among the passages offered (top 3, top 5), from the cited source alone
 * and from all sources pooled (scope "plan", every other abstract a distractor); and how far the
 * model-free checks can be trusted (precision: flagged claims that are indeed not supported;
 * supported claims flagged, which must be none; labelled flags caught).
 */
export interface CitationFigures {
  claims: number;
  withEvidence: number;
  recallAt1: number;
  recallAt3: number;
  recallAt5: number;
  pooledRecallAt3: number;
  pooledRecallAt5: number;
  flagged: number;
  checkPrecision: number;
  supportedFlagged: number;
  labelledFlags: number;
  labelledFlagsCaught: number;
}

export interface CitationEvaluation {
  all: CitationFigures;
  heldOut: CitationFigures;
  /** Supported claims the checks flagged, with what they found: must stay empty. */
  falseFlags: Array<{ id: string; claim: string; findings: string[] }>;
}

function holds(passage: SourcePassage, source: string, evidence: string): boolean {
  const at = source.indexOf(evidence);
  return at >= 0 && passage.start < at + evidence.length && passage.end > at;
}

function figuresOf(
  cases: readonly CitationCase[],
  pool: ReadonlyMap<string, SourcePassage[]>,
  falseFlags?: CitationEvaluation['falseFlags'],
): CitationFigures {
  const pooled = [...pool.values()].flat();
  let claims = 0;
  let withEvidence = 0;
  const hits = { 1: 0, 3: 0, 5: 0, p3: 0, p5: 0 };
  let flagged = 0;
  let rightFlags = 0;
  let supportedFlagged = 0;
  let labelledFlags = 0;
  let caught = 0;
  for (const c of cases) {
    const passages = pool.get(c.id)!;
    for (const claim of c.claims) {
      claims++;
      const findings = checkClaim(claim.claim, c.source);
      if (findings.length > 0) {
        flagged++;
        if (claim.verdict === 'supported') {
          supportedFlagged++;
          falseFlags?.push({ id: c.id, claim: claim.claim, findings: findings.map((f) => `${f.kind}: ${f.value}`) });
        } else rightFlags++;
      }
      if (claim.flags && claim.flags.length > 0) {
        labelledFlags++;
        if (findings.length > 0) caught++;
      }
      if (claim.evidence === undefined) continue;
      withEvidence++;
      const ranked = rankPassages(claim.claim, passages, 5);
      const rank = ranked.findIndex((r) => holds(r.passage, c.source, claim.evidence!));
      if (rank === 0) hits[1]++;
      if (rank >= 0 && rank < 3) hits[3]++;
      if (rank >= 0) hits[5]++;
      const rankedPooled = rankPassages(claim.claim, pooled, 5);
      const pooledRank = rankedPooled.findIndex(
        (r) => r.passage.sourceId === c.id && holds(r.passage, c.source, claim.evidence!),
      );
      if (pooledRank >= 0 && pooledRank < 3) hits.p3++;
      if (pooledRank >= 0) hits.p5++;
    }
  }
  const ratio = (n: number, d: number) => (d === 0 ? 1 : Math.round((n / d) * 1000) / 1000);
  return {
    claims,
    withEvidence,
    recallAt1: ratio(hits[1], withEvidence),
    recallAt3: ratio(hits[3], withEvidence),
    recallAt5: ratio(hits[5], withEvidence),
    pooledRecallAt3: ratio(hits.p3, withEvidence),
    pooledRecallAt5: ratio(hits.p5, withEvidence),
    flagged,
    checkPrecision: ratio(rightFlags, flagged),
    supportedFlagged,
    labelledFlags,
    labelledFlagsCaught: caught,
  };
}

export function evaluateCitations(cases: readonly CitationCase[]): CitationEvaluation {
  const pool = new Map(cases.map((c) => [c.id, sourcePassages(c.id, c.source)]));
  const falseFlags: CitationEvaluation['falseFlags'] = [];
  return {
    all: figuresOf(cases, pool, falseFlags),
    heldOut: figuresOf(
      cases.filter((c) => c.heldOut),
      pool,
    ),
    falseFlags,
  };
}
