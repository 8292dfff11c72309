import type { extractionV1 } from '@quarry/contracts';
import { handlersWith } from '@quarry/grpc';
import type { ExtractionServiceDeps } from './handlers/deps.js';
import { extractData } from './handlers/extract-data.js';
import { getExtractionJob } from './handlers/get-extraction-job.js';
import { submitCitationVerdicts } from './handlers/submit-citation-verdicts.js';
import { submitExtraction } from './handlers/submit-extraction.js';
import { verifyCitations } from './handlers/verify-citations.js';

export type { ExtractionServiceDeps } from './handlers/deps.js';

/** The ExtractionService rpcs, one handler each (handlers/). */
export function createExtractionService(deps: ExtractionServiceDeps): extractionV1.ExtractionServiceServer {
  return handlersWith(deps, {
    extractData,
    submitExtraction,
    getExtractionJob,
    verifyCitations,
    submitCitationVerdicts,
  });
}
