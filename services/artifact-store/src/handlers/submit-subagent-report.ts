import type { artifactV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { answerOf } from '../core/idempotency.js';
import { subagentReport } from '../core/writes.js';
import { insertRow } from '../store/insert-row.js';
import { appendEvent } from '../store/outbox.js';
import { inTenant } from '../store/tenant.js';
import { type ArtifactServiceDeps, storageQuotasOf } from './deps.js';

/**
 * SubmitSubagentReport: a subagent's report on a step of a plan, stored as an artifact. A retry
 * with the first call's idempotency key gets the first report, and no second event.
 */
export async function submitSubagentReport(
  deps: ArtifactServiceDeps,
  req: artifactV1.SubmitSubagentReportRequest,
  ctx: CallContext,
): Promise<artifactV1.SubmitSubagentReportResponse> {
  const write = subagentReport(req);
  await deps.plans.resolve(ctx, req.planId, req.stepId);
  return inTenant(deps.db, ctx, async (trx) => {
    const written = await insertRow(
      trx,
      'artifact.research_artifacts',
      ctx.identity.orgId,
      write.row,
      storageQuotasOf(deps),
    );
    const report = answerOf(written);
    if (written.kind === 'stored') await appendEvent(trx, ctx, report, write.event);
    return { reportId: report.id, stored: true };
  });
}
