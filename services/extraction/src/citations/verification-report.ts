import type { SupportTally, SubmittedVerdict } from './verdicts.js';
import type { VerificationClaim, VerificationPassage } from './verification.js';

/**
 * The stored verification report: an artifact (analysis) of the plan when there is one, so the
 * plan's report and page list it and search finds it; its content is the whole record (claims,
 * verdicts, the passages they rest on, findings, the tally) and its text a readable summary. Pure.
 */

export const REPORT_TAG = 'citation-verification';

export interface ReportInput {
  verificationId: string;
  outputId?: string;
  claims: readonly VerificationClaim[];
  passages: readonly VerificationPassage[];
  verdicts: readonly SubmittedVerdict[];
  tally: SupportTally;
}

export function reportTitle(input: Pick<ReportInput, 'outputId' | 'tally'>): string {
  const subject = input.outputId ? `deliverable ${input.outputId}` : 'a text';
  return `Citation verification of ${subject}: ${Math.round(input.tally.supportRatio * 100)}% supported`;
}

export function reportContent(input: ReportInput): Record<string, unknown> {
  const byNo = new Map(input.verdicts.map((v) => [v.claimNo, v]));
  const passage = (id: string | undefined) => input.passages.find((p) => p.id === id);
  return {
    kind: 'citation_verification',
    verificationId: input.verificationId,
    ...(input.outputId ? { outputId: input.outputId } : {}),
    ...input.tally,
    claims: input.claims.map((c) => {
      const v = byNo.get(c.claimNo);
      const p = passage(v?.passageId);
      return {
        claimNo: c.claimNo,
        text: c.text,
        cited: c.cited,
        sourceIds: c.sourceIds,
        verdict: c.settled ?? v?.verdict ?? 'not_enough_information',
        ...(p
          ? {
              passage: {
                id: p.id,
                sourceId: p.sourceId,
                start: p.start,
                end: p.end,
                page: p.page ?? null,
                text: p.text,
              },
            }
          : {}),
        findings: c.findings,
      };
    }),
  };
}

export function reportText(input: ReportInput): string {
  const t = input.tally;
  const byNo = new Map(input.verdicts.map((v) => [v.claimNo, v]));
  const lines = [
    reportTitle(input),
    `Support ratio ${t.supportRatio}: ${t.supported} supported, ${t.partiallySupported} partially supported, ${t.contradicted} contradicted, ${t.notEnoughInformation} not enough information, ${t.sourceMissing} source missing.`,
    '',
  ];
  for (const c of input.claims) {
    const v = byNo.get(c.claimNo);
    const verdict = (c.settled ?? v?.verdict ?? 'not_enough_information').replace(/_/g, ' ');
    const p = input.passages.find((x) => x.id === v?.passageId);
    lines.push(`${c.claimNo}. ${verdict.toUpperCase()}: ${c.text}`);
    if (c.cited.length) lines.push(`   cites ${c.cited.join(', ')}`);
    if (p) lines.push(`   evidence (${p.sourceId}${p.page ? `, page ${p.page}` : ''}): ${p.text}`);
    for (const f of c.findings) lines.push(`   ${f.kind.replace(/_/g, ' ')}: ${f.value}`);
  }
  return lines.join('\n');
}
