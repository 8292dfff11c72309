import { descriptorSet, extractionV1 } from '@quarry/contracts';
import { isConnectionFailure } from '@quarry/db';
import { createGrpcServer, type GrpcServer, type IdentityVerifier } from '@quarry/grpc';
import { createExtractionService, type ExtractionServiceDeps } from './service.js';

export interface ExtractionServerDeps extends ExtractionServiceDeps {
  verifier: IdentityVerifier;
}

/** The extraction service's gRPC server (ExtractionService + health + reflection), built but not listening. */
export function buildServer(deps: ExtractionServerDeps): GrpcServer {
  return createGrpcServer({
    services: [{ definition: extractionV1.ExtractionServiceService, implementation: createExtractionService(deps) }],
    verifier: deps.verifier,
    logger: deps.logger,
    descriptorSet,
    isUnavailable: isConnectionFailure,
  });
}
