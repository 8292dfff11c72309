import { randomUUID } from 'node:crypto';
import { expect } from '@jest/globals';
import { artifactSchemas, startArtifactStore, type ArtifactStore } from '@quarry/artifact-store';
import { artifactV1, extractionV1, planV1 } from '@quarry/contracts';
import { sql } from '@quarry/db';
import { eventsSchemas } from '@quarry/events';
import { createGrpcClient, createIdentitySigner, QuarryError, type Identity } from '@quarry/grpc';
import { planSchemas, startPlanEngine } from '@quarry/plan-engine';
import { createLogger } from '@quarry/telemetry';
import { createTestDatabase } from '@quarry/testing';
import {
  createHeuristicProvider,
  extractionSchemas,
  grantExtractionMaintenance,
  startExtraction,
  type ExtractionOptions,
} from '../src/index.js';

// The real system around the extraction service for its integration tests: a fresh migrated
// PostgreSQL database, the plan engine and the artifact store on loopback ports (as `quarry
// start` wires them), and extraction services started with the runtime, as many as a test file
// needs configurations, each with a signed client acting like the gateway.

const IDENTITY_KEY = 'k'.repeat(48);
const HOST = '127.0.0.1';

/** Call options acting as a new user of `orgId`. */
export const as = (orgId: string): { identity: Identity } => ({
  identity: { kind: 'user', orgId, userId: randomUUID(), requestId: randomUUID() },
});

export type ExtractionClient = ReturnType<typeof createGrpcClient<typeof extractionV1.ExtractionServiceService>>;
export type ServiceOptions = Partial<
  Omit<ExtractionOptions, 'identityKey' | 'artifactStoreAddress' | 'logger' | 'host' | 'port' | 'databaseUrl'>
>;

export async function startTestSystem() {
  const database = await createTestDatabase({
    schemas: [...planSchemas, ...eventsSchemas, ...artifactSchemas, ...extractionSchemas],
  });
  await grantExtractionMaintenance(database.admin, database.appRole);
  const logger = createLogger({ service: 'extraction-test', level: 'silent' });
  const planEngine = await startPlanEngine({
    databaseUrl: database.appUrl,
    identityKey: IDENTITY_KEY,
    logger,
    host: HOST,
    port: 0,
    artifactStoreAddress: () => artifactStore.address, // started next; read at the first call
  });
  const artifactStore: ArtifactStore = await startArtifactStore({
    databaseUrl: database.appUrl,
    identityKey: IDENTITY_KEY,
    planEngineAddress: planEngine.address,
    logger,
    host: HOST,
    port: 0,
  });
  const signer = createIdentitySigner({ key: IDENTITY_KEY, issuer: 'gateway' });
  const artifactClient = createGrpcClient(artifactV1.ArtifactServiceClient, artifactStore.address, { signer });
  const planClient = createGrpcClient(planV1.PlanServiceClient, planEngine.address, { signer });
  const started = new Map<ExtractionClient, { close(): Promise<void> }>();

  const count = async (query: ReturnType<typeof sql<{ n: number }>>) =>
    (await query.execute(database.admin)).rows[0]!.n;

  return {
    database,
    /** An extraction service with these options (heuristic only, auto, sampling on, 5 s model timeout by default) and a client. */
    async extraction(options: ServiceOptions = {}): Promise<ExtractionClient> {
      const service = await startExtraction({
        identityKey: IDENTITY_KEY,
        artifactStoreAddress: artifactStore.address,
        databaseUrl: database.appUrl,
        providers: { heuristic: createHeuristicProvider() },
        provider: 'auto',
        samplingEnabled: true,
        timeoutMs: 5000,
        maxTokens: 4096,
        handleTtlMs: 60_000,
        logger,
        host: HOST,
        port: 0,
        ...options,
      });
      const client = createGrpcClient(extractionV1.ExtractionServiceClient, service.address, {
        signer,
        defaultDeadlineMs: 20_000,
      });
      started.set(client, { close: async () => (client.close(), await service.close(1000)) });
      return client;
    },
    /** Stops the extraction service behind `client` (as a restart or a redeploy does). */
    async stopExtraction(client: ExtractionClient): Promise<void> {
      await started.get(client)?.close();
      started.delete(client);
    },
    /** A source document of `orgId` imported from `data` (converted by the artifact store). */
    async importDocument(orgId: string, data: Buffer, fileName: string): Promise<string> {
      return (await artifactClient.call('importDocument', { data, fileName }, as(orgId))).id;
    },
    /** A research artifact of `orgId` whose text is `text` (in a plan, with more content, when given). */
    async storeArtifact(
      orgId: string,
      text: string,
      extra: { planId?: string; content?: Record<string, unknown> } = {},
    ): Promise<string> {
      const stored = await artifactClient.call(
        'storeResearch',
        {
          artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_FINDING,
          title: 'A source',
          content: { text, ...extra.content },
          contentText: text,
          tags: [],
          ...(extra.planId ? { planId: extra.planId } : {}),
        },
        as(orgId),
      );
      return stored.id;
    },
    /** A markdown deliverable of `orgId`'s plan. */
    async storeOutput(orgId: string, planId: string, content: string): Promise<string> {
      const stored = await artifactClient.call(
        'storeResearchOutput',
        { planId, mediaType: artifactV1.MediaType.MEDIA_TYPE_MARKDOWN, title: 'Findings', content },
        as(orgId),
      );
      return stored.outputId;
    },
    /** An artifact as its org reads it back. */
    async readArtifact(orgId: string, id: string): Promise<artifactV1.GetArtifactResponse> {
      return artifactClient.call('getArtifact', { id }, as(orgId));
    },
    /** A plan of `orgId` with one extract step. */
    async createPlan(orgId: string): Promise<{ planId: string; stepId: string }> {
      const created = await planClient.call(
        'createResearchPlan',
        {
          name: 'Invoices',
          researchQuestion: 'What do the invoices say?',
          steps: [{ stepType: planV1.StepType.STEP_TYPE_EXTRACT, instructions: 'Extract the invoice data.' }],
          branchingConditions: [],
        },
        as(orgId),
      );
      return { planId: created.planId, stepId: created.firstStep!.stepId };
    },
    /** Extraction rows and extraction events in the database, counted as the admin (past row-level security). */
    async stored(): Promise<{ results: number; events: number }> {
      return {
        results: await count(sql<{ n: number }>`select count(*)::int as n from artifact.extraction_results`),
        events: await count(
          sql<{
            n: number;
          }>`select count(*)::int as n from events.outbox where payload->>'sourceTable' = 'extraction_result'`,
        ),
      };
    },
    /** The stored row of an extraction, as the admin. */
    async row(id: string): Promise<Record<string, unknown>> {
      const { rows } = await sql<
        Record<string, unknown>
      >`select * from artifact.extraction_results where id = ${id}::uuid`.execute(database.admin);
      expect(rows).toHaveLength(1);
      return rows[0]!;
    },
    /** The content.created events of an extraction, as the admin. */
    async events(id: string): Promise<{ topic: string; org_id: string; payload: Record<string, unknown> }[]> {
      const { rows } = await sql<{ topic: string; org_id: string; payload: Record<string, unknown> }>`
        select topic, org_id::text, payload from events.outbox where payload->>'sourceId' = ${id}`.execute(
        database.admin,
      );
      return rows;
    },
    async close(): Promise<void> {
      for (const s of started.values()) await s.close();
      artifactClient.close();
      planClient.close();
      await artifactStore.close(1000);
      await planEngine.close(1000);
      await database.drop();
    },
  };
}

export type TestSystem = Awaited<ReturnType<typeof startTestSystem>>;

/** How a call failed, as the caller (the gateway) sees it. */
export async function failure(call: Promise<unknown>): Promise<QuarryError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(QuarryError);
  return error as QuarryError;
}

/** Run `fn` and check that it stored no extraction result and wrote no event. */
export async function storesNothing(system: TestSystem, fn: () => Promise<unknown>): Promise<void> {
  const before = await system.stored();
  await fn();
  expect(await system.stored()).toEqual(before);
}
