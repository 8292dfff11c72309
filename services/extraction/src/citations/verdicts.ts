/**
 * The client's answers to a verification, checked against what was offered, and what they add up
 * to. Every claim that was offered passages is answered exactly once; a verdict other than
 * not_enough_information names the passage it rests on, and that passage must be one offered for
 * that claim. Claims whose cited source does not exist (or is another org's) were settled at once
 * as source_missing and are not answered. Pure.
 */

export type Verdict = 'supported' | 'partially_supported' | 'contradicted' | 'not_enough_information';

export interface OfferedClaim {
  claimNo: number;
  /** Passage ids offered for this claim; none when its source is missing. */
  passageIds: string[];
}

export interface SubmittedVerdict {
  claimNo: number;
  verdict: Verdict;
  passageId?: string;
  note?: string;
}

export type VerdictProblem =
  | { claimNo: number; rule: 'unknown_claim' | 'answered_twice' | 'not_offered_passages' }
  | { claimNo: number; rule: 'passage_required' | 'passage_not_offered'; passageId?: string }
  | { claimNo: number; rule: 'unanswered' };

export function checkVerdicts(
  offered: readonly OfferedClaim[],
  submitted: readonly SubmittedVerdict[],
): VerdictProblem[] {
  const byNo = new Map(offered.map((c) => [c.claimNo, c]));
  const seen = new Set<number>();
  const problems: VerdictProblem[] = [];
  for (const answer of submitted) {
    const claim = byNo.get(answer.claimNo);
    if (!claim) {
      problems.push({ claimNo: answer.claimNo, rule: 'unknown_claim' });
      continue;
    }
    if (seen.has(answer.claimNo)) {
      problems.push({ claimNo: answer.claimNo, rule: 'answered_twice' });
      continue;
    }
    seen.add(answer.claimNo);
    if (claim.passageIds.length === 0) {
      problems.push({ claimNo: answer.claimNo, rule: 'not_offered_passages' });
      continue;
    }
    if (answer.passageId === undefined) {
      if (answer.verdict !== 'not_enough_information')
        problems.push({ claimNo: answer.claimNo, rule: 'passage_required' });
    } else if (!claim.passageIds.includes(answer.passageId)) {
      problems.push({ claimNo: answer.claimNo, rule: 'passage_not_offered', passageId: answer.passageId });
    }
  }
  for (const claim of offered)
    if (claim.passageIds.length > 0 && !seen.has(claim.claimNo))
      problems.push({ claimNo: claim.claimNo, rule: 'unanswered' });
  return problems;
}

export interface SupportTally {
  supported: number;
  partiallySupported: number;
  contradicted: number;
  notEnoughInformation: number;
  sourceMissing: number;
  /**
   * (supported + ½ partially supported) / every claim, source-missing ones included: the share of
   * the text's cited claims its sources bear out. 1 when there are no claims.
   */
  supportRatio: number;
}

export function tally(verdicts: readonly Verdict[], sourceMissing: number): SupportTally {
  const count = (v: Verdict) => verdicts.filter((x) => x === v).length;
  const supported = count('supported');
  const partiallySupported = count('partially_supported');
  const total = verdicts.length + sourceMissing;
  return {
    supported,
    partiallySupported,
    contradicted: count('contradicted'),
    notEnoughInformation: count('not_enough_information'),
    sourceMissing,
    supportRatio: total === 0 ? 1 : Math.round(((supported + partiallySupported / 2) / total) * 1000) / 1000,
  };
}
