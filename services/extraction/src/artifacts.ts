import { artifactV1 } from '@quarry/contracts';
import {
  type CallContext,
  createGrpcClient,
  createIdentitySigner,
  type Identity,
  type ServiceTarget,
} from '@quarry/grpc';
import type { PageSpan } from './core/source-pages.js';

/**
 * What extraction needs from the artifact store, which owns research artifacts and extraction
 * results: the text of a source artifact, and storing a finished result (the row and its
 * content.created event in one transaction). Both run under the caller's organization, so a
 * foreign artifact is ARTIFACT_NOT_FOUND exactly like a missing one, and an unknown plan or step
 * is the plan engine's PLAN_NOT_FOUND / STEP_NOT_FOUND; those errors arrive as QuarryErrors.
 */
export interface ArtifactPort {
  /** Its text, and for a document with pages (slides, sheets) each one's span in that text. */
  loadText(ctx: CallContext, artifactId: string): Promise<LoadedText>;
  /** The stored result's id; `replayed` (with the first data) when its idempotency key was used before. */
  storeResult(
    ctx: CallContext,
    request: artifactV1.StoreExtractionResultRequest,
  ): Promise<artifactV1.StoreExtractionResultResponse>;
  /** Rejects (PLAN_NOT_FOUND / STEP_NOT_FOUND) when storeResult would refuse this plan and step. */
  checkTarget(ctx: CallContext, planId: string, stepId?: string): Promise<void>;
  close(): void;
}

export interface LoadedText {
  text: string;
  title: string;
  planId?: string;
  pages?: PageSpan[];
}

const SERVICE_NAME = 'extraction';

/** The artifact store at `address`, called as this service acting for the caller's org. */
export function createArtifactsClient(options: { address: ServiceTarget; identityKey: string }): ArtifactPort {
  const client = createGrpcClient(artifactV1.ArtifactServiceClient, options.address, {
    signer: createIdentitySigner({ key: options.identityKey, issuer: SERVICE_NAME }),
  });
  const callOptions = (ctx: CallContext) => ({
    identity: {
      kind: 'service',
      serviceName: SERVICE_NAME,
      orgId: ctx.identity.orgId,
      requestId: ctx.identity.requestId,
    } satisfies Identity,
    deadline: ctx.deadline,
    signal: ctx.signal,
  });
  return {
    async loadText(ctx, artifactId) {
      const found = await client.call('getArtifactText', { artifactId }, callOptions(ctx));
      return {
        text: found.text,
        title: found.title,
        ...(found.planId ? { planId: found.planId } : {}),
        ...(found.pages?.units.length ? { pages: found.pages.units } : {}),
      };
    },
    async storeResult(ctx, request) {
      return client.call('storeExtractionResult', request, callOptions(ctx));
    },
    async checkTarget(ctx, planId, stepId) {
      await client.call('checkExtractionTarget', { planId, stepId }, callOptions(ctx));
    },
    close: () => client.close(),
  };
}
