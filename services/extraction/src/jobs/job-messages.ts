import { extractionV1 } from '@quarry/contracts';
import { QuarryError } from '@quarry/grpc';
import type { JobRecord } from '../store/jobs.js';

// A job as messages: what it keeps of its call, and its failure as the error the call would have thrown.

/** What a job keeps of the call that started it: the request without the gateway's fields. */
export function storedRequest(req: extractionV1.ExtractDataRequest): Record<string, unknown> {
  return extractionV1.ExtractDataRequest.toJSON({ ...req, callBudget: undefined, clientSampling: undefined }) as Record<
    string,
    unknown
  >;
}

/** A job's failure as the error its call would have thrown. */
export function jobError(job: JobRecord): QuarryError {
  const error = job.error!;
  return new QuarryError(error.code, error.status, error.message, error.details);
}
