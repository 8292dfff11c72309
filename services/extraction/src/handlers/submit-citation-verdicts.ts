import { artifactV1, extractionV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { checkVerdicts, type SubmittedVerdict, tally, type Verdict } from '../citations/verdicts.js';
import { REPORT_TAG, reportContent, reportText, reportTitle } from '../citations/verification-report.js';
import { principalDigest } from '../core/handle.js';
import { openVerificationHandle } from '../core/verification-handle.js';
import { extractionErrors, toExtractionError } from '../errors.js';
import type { ExtractionServiceDeps } from './deps.js';

const VERDICT_NAMES: Partial<Record<extractionV1.CitationVerdict, Verdict>> = {
  [extractionV1.CitationVerdict.CITATION_VERDICT_SUPPORTED]: 'supported',
  [extractionV1.CitationVerdict.CITATION_VERDICT_PARTIALLY_SUPPORTED]: 'partially_supported',
  [extractionV1.CitationVerdict.CITATION_VERDICT_CONTRADICTED]: 'contradicted',
  [extractionV1.CitationVerdict.CITATION_VERDICT_NOT_ENOUGH_INFORMATION]: 'not_enough_information',
};

/**
 * SubmitCitationVerdicts: open the handle (ours, this org and principal; else
 * VERIFICATION_NOT_FOUND) → the verification kept for it (an expired, foreign or missing one is
 * VERIFICATION_NOT_FOUND too) → check the verdicts against what was offered (VERDICTS_INVALID
 * naming each problem; nothing stored) → tally → store the report as an artifact of the plan
 * (searchable; idempotent per verification) → record the verdicts, the report and the ratio on
 * the verification, its audit record. The same verdicts again answer the same
 * (already_accepted); other verdicts are VERDICTS_ALREADY_SUBMITTED.
 */
export async function submitCitationVerdicts(
  deps: ExtractionServiceDeps,
  req: extractionV1.SubmitCitationVerdictsRequest,
  ctx: CallContext,
): Promise<extractionV1.SubmitCitationVerdictsResponse> {
  try {
    return await submit(deps, req, ctx);
  } catch (error) {
    throw toExtractionError(error, { timeoutMs: deps.timeoutMs, callerSignal: ctx.signal });
  }
}

async function submit(
  deps: ExtractionServiceDeps,
  req: extractionV1.SubmitCitationVerdictsRequest,
  ctx: CallContext,
): Promise<extractionV1.SubmitCitationVerdictsResponse> {
  const who = principalDigest(ctx.identity);
  const claims =
    typeof req.handle === 'string'
      ? openVerificationHandle(req.handle, deps.handleKey, { org: ctx.identity.orgId, who })
      : undefined;
  if (!claims || !deps.verifications) throw extractionErrors.VERIFICATION_NOT_FOUND();
  const now = new Date((deps.now ?? Date.now)());
  const kept = await deps.verifications.find({ orgId: ctx.identity.orgId, principal: who }, claims.ref, now);
  if (!kept) throw extractionErrors.VERIFICATION_NOT_FOUND();

  const submitted: SubmittedVerdict[] = [];
  const problems: string[] = [];
  for (const v of req.verdicts) {
    const verdict = VERDICT_NAMES[v.verdict];
    if (!verdict)
      problems.push(
        `claim ${v.claimNo}: verdict must be supported, partially_supported, contradicted or not_enough_information`,
      );
    else submitted.push({ claimNo: v.claimNo, verdict, ...(v.passageId ? { passageId: v.passageId } : {}) });
  }
  for (const p of checkVerdicts(kept.claims, submitted))
    problems.push(
      `claim ${p.claimNo}: ${p.rule.replace(/_/g, ' ')}${'passageId' in p && p.passageId ? ` (${p.passageId})` : ''}`,
    );
  if (problems.length > 0) throw extractionErrors.VERDICTS_INVALID({ problems: problems.join('; ') });

  const sameAs = (earlier: readonly SubmittedVerdict[]) => canonical(earlier) === canonical(submitted);
  const counts = tally(
    submitted.map((v) => v.verdict),
    kept.claims.filter((c) => c.settled).length,
  );
  if (kept.submitted) {
    if (!sameAs(kept.submitted.verdicts))
      throw extractionErrors.VERDICTS_ALREADY_SUBMITTED({ reportId: kept.submitted.reportArtifactId });
    return answer(kept.submitted.reportArtifactId, counts, true);
  }

  const input = {
    verificationId: claims.ref,
    ...(kept.outputId ? { outputId: kept.outputId } : {}),
    claims: kept.claims,
    passages: kept.passages,
    verdicts: submitted,
    tally: counts,
  };
  const reportId = await deps.artifacts.storeArtifact(ctx, {
    artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_ANALYSIS,
    title: reportTitle(input),
    content: reportContent(input),
    contentText: reportText(input),
    confidence: counts.supportRatio,
    ...(kept.planId ? { planId: kept.planId } : {}),
    tags: [REPORT_TAG],
    // One report per verification, however often a lost answer is retried.
    idempotencyKey: `verify:${claims.ref}`,
  });
  const settledNow = await deps.verifications.settle(
    { orgId: ctx.identity.orgId },
    claims.ref,
    { verdicts: submitted, reportArtifactId: reportId, supportRatio: counts.supportRatio },
    now,
  );
  if (!settledNow) {
    // A concurrent submission of this handle was recorded first: answer as a repeat would.
    const again = await deps.verifications.find({ orgId: ctx.identity.orgId, principal: who }, claims.ref, now);
    if (again?.submitted && !sameAs(again.submitted.verdicts))
      throw extractionErrors.VERDICTS_ALREADY_SUBMITTED({ reportId: again.submitted.reportArtifactId });
    return answer(again?.submitted?.reportArtifactId ?? reportId, counts, true);
  }
  deps.logger.info(
    {
      requestId: ctx.identity.requestId,
      verificationId: claims.ref,
      reportId,
      planId: kept.planId,
      supportRatio: counts.supportRatio,
      claims: kept.claims.length,
    },
    'citation verification stored',
  );
  return answer(reportId, counts, false);
}

function canonical(verdicts: readonly SubmittedVerdict[]): string {
  return JSON.stringify(
    [...verdicts].sort((a, b) => a.claimNo - b.claimNo).map((v) => [v.claimNo, v.verdict, v.passageId ?? null]),
  );
}

function answer(
  reportId: string,
  counts: ReturnType<typeof tally>,
  replayed: boolean,
): extractionV1.SubmitCitationVerdictsResponse {
  return {
    reportId,
    supportRatio: counts.supportRatio,
    supported: counts.supported,
    partiallySupported: counts.partiallySupported,
    contradicted: counts.contradicted,
    notEnoughInformation: counts.notEnoughInformation,
    sourceMissing: counts.sourceMissing,
    handleStatus: replayed
      ? extractionV1.HandleStatus.HANDLE_STATUS_ALREADY_ACCEPTED
      : extractionV1.HandleStatus.HANDLE_STATUS_ACCEPTED,
  };
}
