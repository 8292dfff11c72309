import { extractionV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { extractionErrors } from '../errors.js';
import { RUNNING_INSTRUCTIONS } from '../jobs/deferred-reply.js';
import { jobError } from '../jobs/job-messages.js';
import type { ExtractionServiceDeps } from './deps.js';

/**
 * GetExtractionJob: the org's job, after waiting up to waitSeconds for it to end: running, or
 * completed with its stored result, or failed with the error its call would have answered
 * (same code and message). Another org's job, an expired one and a missing one are all
 * JOB_NOT_FOUND.
 */
export async function getExtractionJob(
  deps: ExtractionServiceDeps,
  req: extractionV1.GetExtractionJobRequest,
  ctx: CallContext,
): Promise<extractionV1.GetExtractionJobResponse> {
  if (!deps.jobs) throw extractionErrors.JOB_NOT_FOUND();
  const waitMs = Math.max(0, req.waitSeconds ?? 0) * 1000;
  const job = await deps.jobs.read(ctx.identity.orgId, req.jobId, waitMs, ctx.signal);
  if (!job) throw extractionErrors.JOB_NOT_FOUND();
  if (job.status === 'failed') throw jobError(job);
  const base = { jobId: job.id, provider: job.provider, createdAt: job.createdAt.toISOString() };
  if (job.status === 'running') {
    return {
      ...base,
      status: extractionV1.ExtractionStatus.EXTRACTION_STATUS_RUNNING,
      extractionId: '',
      fieldConfidences: {},
      overallConfidence: 0,
      fields: [],
      model: '',
      instructions: RUNNING_INSTRUCTIONS,
    };
  }
  const reply = extractionV1.ExtractDataResponse.fromJSON(job.result);
  return {
    ...base,
    status: reply.status,
    extractionId: reply.extractionId,
    data: reply.data,
    fieldConfidences: reply.fieldConfidences,
    overallConfidence: reply.overallConfidence,
    fields: reply.fields,
    provider: reply.provider,
    model: reply.model,
  };
}
