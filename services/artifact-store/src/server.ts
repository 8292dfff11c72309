import { artifactV1, descriptorSet } from '@quarry/contracts';
import { isConnectionFailure } from '@quarry/db';
import { createGrpcServer, type GrpcServer, type IdentityVerifier } from '@quarry/grpc';
import { createArtifactService, type ArtifactServiceDeps } from './service.js';

export interface ArtifactStoreDeps extends ArtifactServiceDeps {
  verifier: IdentityVerifier;
}

/** The artifact store's gRPC server (ArtifactService + health + reflection), built but not listening. */
export function buildServer(deps: ArtifactStoreDeps): GrpcServer {
  return createGrpcServer({
    services: [{ definition: artifactV1.ArtifactServiceService, implementation: createArtifactService(deps) }],
    verifier: deps.verifier,
    logger: deps.logger,
    descriptorSet,
    isUnavailable: isConnectionFailure,
  });
}
