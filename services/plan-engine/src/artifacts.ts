import { artifactV1, type planV1 } from '@quarry/contracts';
import {
  type CallContext,
  createGrpcClient,
  createIdentitySigner,
  type GrpcClient,
  type ServiceTarget,
} from '@quarry/grpc';

/**
 * Where get_step_context and get_research_context get a plan's artifacts from. The artifact
 * store owns them; the plan engine asks it with one gRPC call per request.
 */
export interface PlanArtifacts {
  list(ctx: CallContext, planId: string): Promise<planV1.ArtifactSummary[]>;
  /** Delete everything the artifact store holds for the plan (idempotent: zeros when nothing is left). */
  purge(ctx: CallContext, planId: string): Promise<artifactV1.PurgePlanContentResponse>;
  close(): void;
}

const NOTHING_PURGED: artifactV1.PurgePlanContentResponse = {
  artifactsDeleted: 0,
  outputsDeleted: 0,
  extractionResultsDeleted: 0,
};

/** Without an artifact store (not configured), plans have no artifacts. */
export const noPlanArtifacts: PlanArtifacts = {
  list: async () => [],
  purge: async () => NOTHING_PURGED,
  close: () => {},
};

const ARTIFACT_TYPE_PREFIX = 'ARTIFACT_TYPE_';

/**
 * ListPlanArtifacts on the artifact store at `address` (or in this process), as the plan engine acting for the
 * caller's organization (a signed service identity carrying the caller's org and request id),
 * within the caller's own deadline. `address` may be a function, read at the first call: in one
 * process (`npm start`, tests) the artifact store starts after the plan engine, because each
 * calls the other.
 */
export function createPlanArtifactsClient(options: {
  address: ServiceTarget | (() => ServiceTarget);
  identityKey: string;
}): PlanArtifacts {
  const signer = createIdentitySigner({ key: options.identityKey, issuer: 'plan-engine' });
  let client: GrpcClient<typeof artifactV1.ArtifactServiceService> | undefined;
  const connect = () => {
    const address = typeof options.address === 'function' ? options.address() : options.address;
    client ??= createGrpcClient(artifactV1.ArtifactServiceClient, address, { signer });
    return client;
  };
  const asCaller = (ctx: CallContext) => ({
    identity: {
      kind: 'service' as const,
      serviceName: 'plan-engine',
      orgId: ctx.identity.orgId,
      requestId: ctx.identity.requestId,
    },
    deadline: ctx.deadline,
    signal: ctx.signal,
  });
  return {
    purge: (ctx, planId) => connect().call('purgePlanContent', { planId }, asCaller(ctx)),
    async list(ctx, planId) {
      const { artifacts } = await connect().call('listPlanArtifacts', { planId }, asCaller(ctx));
      return artifacts.map((a) => ({
        id: a.id,
        artifactType: artifactV1.artifactTypeToJSON(a.artifactType).slice(ARTIFACT_TYPE_PREFIX.length).toLowerCase(),
        title: a.title,
        confidence: a.confidence,
        stepId: a.stepId,
        createdAt: a.createdAt,
      }));
    },
    close: () => client?.close(),
  };
}
