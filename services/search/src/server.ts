import { descriptorSet, searchV1 } from '@quarry/contracts';
import { isConnectionFailure } from '@quarry/db';
import { createGrpcServer, type GrpcServer, type IdentityVerifier } from '@quarry/grpc';
import { createSearchService, type SearchServiceDeps } from './service.js';

export interface SearchServerDeps extends SearchServiceDeps {
  verifier: IdentityVerifier;
}

/** The search service's gRPC server (SearchService + health + reflection), built but not listening. */
export function buildServer(deps: SearchServerDeps): GrpcServer {
  return createGrpcServer({
    services: [{ definition: searchV1.SearchServiceService, implementation: createSearchService(deps) }],
    verifier: deps.verifier,
    logger: deps.logger,
    descriptorSet,
    isUnavailable: isConnectionFailure,
  });
}
