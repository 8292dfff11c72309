import type { planV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import type { JsonValue } from '../core/index.js';
import { planStatuses } from '../enums.js';
import { planErrors } from '../errors.js';
import { earlierSubmission, recordSubmission } from '../store/submissions.js';
import { applyTransition, inTenant, mustLoad, type PlanHandlerDeps } from './plan-transaction.js';

/** The execution report is kept with the step and read back whole by get_research_context. */
const MAX_EXECUTION_REPORT_BYTES = 64 * 1024;

/**
 * submit_step_result: records a step's result (the core also starts a pending step and applies
 * the branching conditions). With an idempotency key, every retry gets the first answer and
 * nothing is written again, even after the plan moved on; the key is checked under the plan lock.
 */
export async function submitStepResult(
  deps: PlanHandlerDeps,
  req: planV1.SubmitStepResultRequest,
  ctx: CallContext,
): Promise<planV1.SubmitStepResultResponse> {
  if (!req.result) throw planErrors.INVALID_ARGUMENT({ field: 'result', rule: 'is required (a JSON object)' });
  const report = req.stepExecutionReport;
  if (report && Buffer.byteLength(JSON.stringify(report)) > MAX_EXECUTION_REPORT_BYTES) {
    throw planErrors.INVALID_ARGUMENT({
      field: 'stepExecutionReport',
      rule: `must be at most ${MAX_EXECUTION_REPORT_BYTES} bytes once serialized as JSON; summarise it`,
    });
  }
  return inTenant(deps, ctx, async (trx) => {
    const loaded = await mustLoad(trx, req.planId, true);
    const at = deps.now(); // under the plan lock: times follow commit order
    if (req.idempotencyKey) {
      const earlier = await earlierSubmission(trx, req.planId, req.idempotencyKey);
      if (earlier && earlier.stepId !== req.stepId) {
        throw planErrors.INVALID_ARGUMENT({
          field: 'idempotencyKey',
          rule: `was already used for step ${earlier.stepId}; use a new key for another step`,
        });
      }
      if (earlier) return { submitted: true, planStatus: planStatuses.valueOf(earlier.planStatus) };
    }
    const result = await applyTransition(trx, ctx, loaded, {
      type: 'submit_step_result',
      stepId: req.stepId,
      result: req.result as JsonValue,
      confidence: req.confidence ?? null,
      executionReport: (report ?? null) as JsonValue | null,
      formattingNotes: req.outputFormattingNotes ?? null,
      sessionId: req.sessionId ?? null,
      at,
    });
    if (req.idempotencyKey) {
      await recordSubmission(trx, {
        orgId: ctx.identity.orgId,
        planId: req.planId,
        idempotencyKey: req.idempotencyKey,
        stepId: req.stepId,
        planStatus: result.state.status,
      });
    }
    return { submitted: true, planStatus: planStatuses.valueOf(result.state.status) };
  });
}
