import { randomUUID } from 'node:crypto';
import { artifactV1, planV1 } from '@quarry/contracts';
import { createCursorCodec } from '@quarry/cursors';
import { createDb, sql } from '@quarry/db';
import { eventsSchemas } from '@quarry/events';
import { buildServiceServer, createGrpcClient, createIdentitySigner, type Identity } from '@quarry/grpc';
import { planSchemas, startPlanEngine } from '@quarry/plan-engine';
import { createLogger } from '@quarry/telemetry';
import { createTestDatabase } from '@quarry/testing';
import {
  artifactSchemas,
  createArtifactService,
  createPlanReferencesClient,
  type ArtifactDatabase,
  type PlanReferences,
} from '../src/index.js';
import type { UrlFetchSettings } from '../src/web/fetch-url.js';
import type { StorageLimits } from '../src/core/storage-quota.js';

// A real artifact store over real PostgreSQL for the test files: each gets a fresh migrated
// database, the server on a free loopback port and a signed client.

/** The identity key the test store's codecs and signers use (old-style cursors are minted with it). */
export const IDENTITY_KEY = 'k'.repeat(48);
const HOST = '127.0.0.1';

/** Call options acting as a new user of `orgId`. */
export const as = (orgId: string): { identity: Identity } => ({
  identity: { kind: 'user', orgId, userId: randomUUID(), requestId: randomUUID() },
});

/** Every plan reference resolves: for tests about something else than plan references. */
const everyPlanResolves: PlanReferences = { resolve: async () => {}, close: () => {} };

/**
 * Start the artifact store. With `planEngine: true`, plan references are checked by the real
 * plan engine (its schema in the same database, reached through createPlanReferencesClient as
 * in production), and `plans` creates plans in it; otherwise every plan reference resolves.
 * `urlImports`: import_url's settings (what it may fetch, limits, the resolver).
 */
export async function startTestStore(
  options: {
    planEngine?: boolean;
    readBudgetBytes?: number;
    urlImports?: Partial<UrlFetchSettings>;
    storageQuotas?: StorageLimits;
  } = {},
) {
  const database = await createTestDatabase({
    schemas: [...(options.planEngine ? planSchemas : []), ...eventsSchemas, ...artifactSchemas],
  });
  const logger = createLogger({ service: 'artifact-store-test', level: 'silent' });
  const signer = createIdentitySigner({ key: IDENTITY_KEY, issuer: 'test' });
  const planEngine = options.planEngine
    ? await startPlanEngine({ databaseUrl: database.appUrl, identityKey: IDENTITY_KEY, logger, host: HOST, port: 0 })
    : undefined;
  const planReferences = planEngine
    ? createPlanReferencesClient({ address: planEngine.address, identityKey: IDENTITY_KEY })
    : everyPlanResolves;
  const planClient = planEngine
    ? createGrpcClient(planV1.PlanServiceClient, planEngine.address, { signer })
    : undefined;
  const db = createDb<ArtifactDatabase>({ connectionString: database.appUrl, max: 2 });
  const server = buildServiceServer({
    definition: artifactV1.ArtifactServiceService,
    implementation: createArtifactService({
      db,
      plans: planReferences,
      reads: { budgetBytes: options.readBudgetBytes ?? 256 * 1024 },
      cursors: createCursorCodec(IDENTITY_KEY, 'artifact-store'),
      storageQuotas: options.storageQuotas,
      logger,
      ...(options.urlImports ? { urlImports: options.urlImports } : {}),
    }),
    identityKey: IDENTITY_KEY,
    logger,
  });
  const port = await server.listen(HOST, 0);
  const client = createGrpcClient(artifactV1.ArtifactServiceClient, `${HOST}:${port}`, { signer });

  return {
    database,
    db,
    client,
    /** Where the store listens (host:port), for tests that reach it through something else. */
    address: `${HOST}:${port}`,
    /** Rows in `table` (schema.table), counted as the admin, past row-level security. */
    async count(table: string): Promise<number> {
      return (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(database.admin))
        .rows[0]!.n;
    },
    plans: {
      /** A new plan of `orgId` in the real plan engine, with one extract step. */
      async create(orgId: string): Promise<{ planId: string; stepId: string }> {
        if (!planClient) throw new Error('startTestStore({ planEngine: true }) is needed to create plans');
        const created = await planClient.call(
          'createResearchPlan',
          {
            name: 'Battery prices',
            researchQuestion: 'How did lithium prices move in 2024?',
            steps: [{ stepType: planV1.StepType.STEP_TYPE_EXTRACT, instructions: 'Extract the prices.' }],
            branchingConditions: [],
          },
          as(orgId),
        );
        return { planId: created.planId, stepId: created.firstStep!.stepId };
      },
    },
    async close(): Promise<void> {
      client.close();
      planClient?.close();
      await server.shutdown(1000);
      planReferences.close();
      await planEngine?.close(1000);
      await db.destroy();
      await database.drop();
    },
  };
}

export type TestStore = Awaited<ReturnType<typeof startTestStore>>;
