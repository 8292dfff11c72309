import { descriptorSet, planV1 } from '@quarry/contracts';
import { isConnectionFailure } from '@quarry/db';
import { createGrpcServer, type GrpcServer, type IdentityVerifier } from '@quarry/grpc';
import { createPlanService, type PlanServiceDeps } from './service.js';

export interface PlanEngineDeps extends PlanServiceDeps {
  verifier: IdentityVerifier;
}

/** The plan engine's gRPC server (PlanService + health + reflection), built but not listening. */
export function buildServer(deps: PlanEngineDeps): GrpcServer {
  return createGrpcServer({
    services: [{ definition: planV1.PlanServiceService, implementation: createPlanService(deps) }],
    verifier: deps.verifier,
    logger: deps.logger,
    descriptorSet,
    isUnavailable: isConnectionFailure,
  });
}
