import { randomUUID } from 'node:crypto';
import { extractionV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { resolveCitations } from '../citations/citation-sources.js';
import { parseClaims } from '../citations/claim-parsing.js';
import { assembleVerification, VERIFICATION_INSTRUCTIONS, type VerificationClaim } from '../citations/verification.js';
import { principalDigest } from '../core/handle.js';
import { signVerificationHandle } from '../core/verification-handle.js';
import { extractionErrors, toExtractionError } from '../errors.js';
import type { ExtractionServiceDeps } from './deps.js';

/**
 * VerifyCitations: read the text (a deliverable of the org, or as given) → find the claims that
 * cite something (citations/claim-parsing.ts) → open what they cite under the caller's org
 * (citations/citation-sources.ts: a missing and a foreign source alike are missing) → the
 * model-free checks and the best passages per claim (citations/verification.ts) → keep it all for
 * the handle (extraction.citation_verifications) → answer claims, passages, instructions and the
 * handle. Nothing is judged or stored as a result until submit_citation_verdicts.
 */
export async function verifyCitations(
  deps: ExtractionServiceDeps,
  req: extractionV1.VerifyCitationsRequest,
  ctx: CallContext,
): Promise<extractionV1.VerifyCitationsResponse> {
  try {
    return await verify(deps, req, ctx);
  } catch (error) {
    throw toExtractionError(error, { timeoutMs: deps.timeoutMs, callerSignal: ctx.signal });
  }
}

async function verify(
  deps: ExtractionServiceDeps,
  req: extractionV1.VerifyCitationsRequest,
  ctx: CallContext,
): Promise<extractionV1.VerifyCitationsResponse> {
  const subject = req.subject;
  if (!subject) throw extractionErrors.INVALID_ARGUMENT({ field: 'outputId', rule: 'or text is required' });
  if (!deps.verifications)
    throw extractionErrors.INVALID_ARGUMENT({
      field: 'outputId',
      rule: 'cannot be verified: this service keeps no state',
    });
  const output = subject.$case === 'outputId' ? await deps.artifacts.loadOutput(ctx, subject.outputId) : undefined;
  const text = subject.$case === 'text' ? subject.text : (output?.text ?? '');
  const planId = req.planId ?? output?.planId;
  // A foreign or missing plan is PLAN_NOT_FOUND, before anything is read from it.
  if (req.planId !== undefined) await deps.artifacts.checkTarget(ctx, req.planId);

  const parsed = parseClaims(text);
  const scope = req.scope === extractionV1.CitationScope.CITATION_SCOPE_PLAN ? 'plan' : 'cited';
  const sources = await resolveCitations(
    deps.artifacts,
    ctx,
    parsed.flatMap((c) => c.targets),
    {
      ...(planId ? { planId } : {}),
      readPlan: scope === 'plan',
      ...(subject.$case === 'outputId' ? { excludeOutputId: subject.outputId } : {}),
    },
  );
  const planPool = sources.plan?.flatMap((s) => s.passages);
  const { claims, passages } = assembleVerification(parsed, sources.resolved, planPool);

  const nowMs = (deps.now ?? Date.now)();
  const expiresMs = nowMs + deps.handleTtlMs;
  const id = randomUUID();
  const who = principalDigest(ctx.identity);
  const needsVerdicts = claims.some((c) => c.passageIds.length > 0);
  if (claims.length > 0)
    await deps.verifications.add({
      id,
      orgId: ctx.identity.orgId,
      principal: who,
      ...(planId ? { planId } : {}),
      ...(subject.$case === 'outputId' ? { outputId: subject.outputId } : {}),
      claims,
      passages,
      createdAt: new Date(nowMs),
      expiresAt: new Date(expiresMs),
    });
  deps.logger.info(
    { requestId: ctx.identity.requestId, verificationId: id, claims: claims.length, passages: passages.length, scope },
    'citation verification issued',
  );
  return {
    handle:
      claims.length > 0
        ? signVerificationHandle(
            { org: ctx.identity.orgId, who, exp: Math.floor(expiresMs / 1000), ref: id },
            deps.handleKey,
          )
        : '',
    instructions:
      claims.length === 0
        ? 'No claim in the text cites anything Quarry can read (a Quarry link, [n] with a reference list, a DOI or a web address): nothing to verify.'
        : needsVerdicts
          ? VERIFICATION_INSTRUCTIONS
          : 'Every claim cites a source that does not exist: all are settled as source_missing. Call submit_citation_verdicts with the handle and no verdicts (verdicts: []) to store the report.',
    expiresAt: new Date(expiresMs).toISOString(),
    claims: claims.map(toProtoClaim),
    passages: passages.map((p) => ({ ...p })),
    ...(planId ? { planId } : {}),
  };
}

function toProtoClaim(claim: VerificationClaim): extractionV1.CitationClaim {
  return {
    claimNo: claim.claimNo,
    text: claim.text,
    cited: claim.cited,
    sourceIds: claim.sourceIds,
    findings: claim.findings,
    passageIds: claim.passageIds,
    settled: claim.settled
      ? extractionV1.CitationVerdict.CITATION_VERDICT_SOURCE_MISSING
      : extractionV1.CitationVerdict.CITATION_VERDICT_UNSPECIFIED,
  };
}
