import { artifactV1 } from '@quarry/contracts';
import {
  type CallContext,
  createGrpcClient,
  createIdentitySigner,
  type Identity,
  QuarryError,
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
  /** A deliverable's text and plan (OUTPUT_NOT_FOUND for a missing or foreign one). */
  loadOutput(ctx: CallContext, outputId: string): Promise<{ text: string; title: string; planId: string }>;
  /**
   * A stored artifact as a citation source: its text, its pages (a document's units, else none)
   * and the web address and DOI its content names; undefined when it does not exist in the org.
   */
  loadSource(ctx: CallContext, artifactId: string): Promise<CitedArtifact | undefined>;
  /** The ids of a plan's artifacts (none for a foreign plan: check it first). */
  planArtifactIds(ctx: CallContext, planId: string): Promise<string[]>;
  /** Stores an artifact (a verification report) for the caller's org; its id. */
  storeArtifact(ctx: CallContext, request: artifactV1.StoreResearchRequest): Promise<string>;
  close(): void;
}

export interface CitedArtifact {
  id: string;
  text: string;
  units: Array<{ number: number; start: number; end: number }>;
  /** content.url / sourceUrl / source_url and content.doi, as stored. */
  urls: string[];
  dois: string[];
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
    async loadOutput(ctx, outputId) {
      const found = await client.call('getResearchOutput', { outputId, maxBytes: 1_048_576 }, callOptions(ctx));
      return { text: found.content ?? '', title: found.title, planId: found.planId };
    },
    async loadSource(ctx, artifactId) {
      let found: artifactV1.GetArtifactResponse;
      try {
        found = await client.call('getArtifact', { id: artifactId, maxBytes: 65_536 }, callOptions(ctx));
      } catch (error) {
        if (error instanceof QuarryError && error.code === 'ARTIFACT_NOT_FOUND') return undefined;
        throw error;
      }
      const { text, pages } = await client.call('getArtifactText', { artifactId }, callOptions(ctx));
      const units = pages?.units ?? [];
      const content = (found.content ?? {}) as Record<string, unknown>;
      const strings = (...keys: string[]) =>
        keys.map((k) => content[k]).filter((v): v is string => typeof v === 'string' && v.length > 0);
      return {
        id: found.id,
        text,
        units: units.map(({ number, start, end }) => ({ number, start, end })),
        urls: strings('url', 'sourceUrl', 'source_url', 'link'),
        dois: strings('doi', 'DOI'),
      };
    },
    async planArtifactIds(ctx, planId) {
      const { artifacts } = await client.call('listPlanArtifacts', { planId }, callOptions(ctx));
      return artifacts.map((a) => a.id);
    },
    async storeArtifact(ctx, request) {
      return (await client.call('storeResearch', request, callOptions(ctx))).id;
    },
    close: () => client.close(),
  };
}
