import { extractionV1, toolNames } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import type { JobRunner } from './job-runner.js';
import { jobError, storedRequest } from './job-messages.js';

/** What a caller that could not wait is told to do with a running job. */
export const RUNNING_INSTRUCTIONS =
  `A model on the server is still extracting, longer than your client waits for one call; nothing needs to be sent again. ` +
  `Call ${toolNames.getExtractionJob} with this jobId (waitSeconds to wait for it) until its status is completed: ` +
  `the result is then stored like any extraction. A failed extraction answers with its error.`;

/**
 * extract_data for a caller with a budget (CallBudget: it gives up on a long call) when a server
 * model is to extract: the call becomes a durable job (job-runner.ts) that runs here, and the
 * answer is its reply when it ends within the budget (the same reply or error as without a
 * budget), else the running job to poll. The job goes on either way, whatever the caller does.
 */
export async function answerWithin(
  jobs: JobRunner,
  req: extractionV1.ExtractDataRequest,
  ctx: CallContext,
  provider: 'anthropic' | 'openai',
  budgetMs: number,
): Promise<extractionV1.ExtractDataResponse> {
  const { kind: _kind, ...owner } = ctx.identity;
  const { record, done } = await jobs.launch(owner, storedRequest(req), provider);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), budgetMs)));
  const outcome = await Promise.race([done, late]).finally(() => clearTimeout(timer));
  if (outcome?.status === 'completed') return extractionV1.ExtractDataResponse.fromJSON(outcome.result);
  if (outcome?.status === 'failed') throw jobError({ ...record, error: outcome.error });
  return {
    extractionId: '',
    fieldConfidences: {},
    overallConfidence: 0,
    status: extractionV1.ExtractionStatus.EXTRACTION_STATUS_RUNNING,
    fields: [],
    provider,
    model: '',
    handleStatus: extractionV1.HandleStatus.HANDLE_STATUS_UNSPECIFIED,
    jobId: record.id,
    pollTool: toolNames.getExtractionJob,
    instructions: RUNNING_INSTRUCTIONS,
  };
}
