import { planV1 } from '@quarry/contracts';
import { type CallContext, createGrpcClient, createIdentitySigner, type ServiceTarget } from '@quarry/grpc';

/**
 * How the artifact store checks that a plan (and step) exists in the caller's organization:
 * one call to the plan engine, which owns plans. Rejects with the plan engine's PLAN_NOT_FOUND
 * or STEP_NOT_FOUND, unchanged (a foreign id is reported exactly like a missing one).
 */
export interface PlanReferences {
  resolve(ctx: CallContext, planId: string, stepId?: string): Promise<void>;
  close(): void;
}

/** ResolvePlanReference on the plan engine at `address`, as this service acting for the caller's org. */
export function createPlanReferencesClient(options: { address: ServiceTarget; identityKey: string }): PlanReferences {
  const client = createGrpcClient(planV1.PlanServiceClient, options.address, {
    signer: createIdentitySigner({ key: options.identityKey, issuer: 'artifact-store' }),
  });
  return {
    async resolve(ctx, planId, stepId) {
      await client.call(
        'resolvePlanReference',
        { planId, stepId },
        {
          identity: {
            kind: 'service',
            serviceName: 'artifact-store',
            orgId: ctx.identity.orgId,
            requestId: ctx.identity.requestId,
          },
          deadline: ctx.deadline,
          signal: ctx.signal,
        },
      );
    },
    close: () => client.close(),
  };
}
