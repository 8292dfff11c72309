import type { artifactV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { subagentReport } from '../core/writes.js';
import { insertRow } from '../store/insert-row.js';
import { appendEvent } from '../store/outbox.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';

/** SubmitSubagentReport: a subagent's report on a step of a plan, stored as an artifact. */
export async function submitSubagentReport(
  deps: ArtifactServiceDeps,
  req: artifactV1.SubmitSubagentReportRequest,
  ctx: CallContext,
): Promise<artifactV1.SubmitSubagentReportResponse> {
  const write = subagentReport(req);
  await deps.plans.resolve(ctx, req.planId, req.stepId);
  return inTenant(deps.db, ctx, async (trx) => {
    const inserted = await insertRow(trx, 'artifact.research_artifacts', ctx.identity.orgId, write.row);
    await appendEvent(trx, ctx, inserted, write.event);
    return { reportId: inserted.id, stored: true };
  });
}
