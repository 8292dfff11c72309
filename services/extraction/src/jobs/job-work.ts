import { extractionV1 } from '@quarry/contracts';
import { type CallContext, Metadata, QuarryError } from '@quarry/grpc';
import type { JobOutcome, JobRecord } from '../store/jobs.js';
import type { ExtractionServiceDeps } from '../handlers/deps.js';
import { extractData } from '../handlers/extract-data.js';

const EXTRACT_DATA_PATH = '/quarry.extraction.v1.ExtractionService/ExtractData';

/**
 * A job's work: the extract_data call it was started by, run again from its stored request for
 * the same org and caller, with the job's own signal instead of the call's (which has long been
 * answered), no caller budget (it runs to its end) and the job's idempotency key on the stored
 * result (a job resumed after its instance stopped stores it once). How it ends is what the call
 * would have answered: the reply, or the error with its code.
 */
export async function runExtractionJob(
  deps: ExtractionServiceDeps,
  job: JobRecord,
  signal: AbortSignal,
): Promise<JobOutcome> {
  const ctx: CallContext = {
    identity: { kind: job.owner.serviceName ? 'service' : 'user', ...job.owner },
    deadline: undefined,
    signal,
    metadata: new Metadata(),
    method: EXTRACT_DATA_PATH,
  };
  try {
    const reply = await extractData(deps, extractionV1.ExtractDataRequest.fromJSON(job.request), ctx, {
      idempotencyKey: `job:${job.id}`,
    });
    return { status: 'completed', result: extractionV1.ExtractDataResponse.toJSON(reply) as Record<string, unknown> };
  } catch (error) {
    if (!(error instanceof QuarryError)) throw error;
    return {
      status: 'failed',
      error: {
        code: error.code,
        status: error.status,
        message: error.message,
        ...(error.details ? { details: error.details } : {}),
      },
    };
  }
}
