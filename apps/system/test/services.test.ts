import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@quarry/config';
import { artifactV1, planV1, searchV1, toolCatalogue } from '@quarry/contracts';
import { appUrlFrom, sql } from '@quarry/db';
import { createGrpcClient, createIdentitySigner, type Identity } from '@quarry/grpc';
import { extractionModelsConfigSchema } from '@quarry/extraction';
import { searchBackendsConfigSchema } from '@quarry/search-index';
import { backendSchemas, provisionIndexerRole, startServices, type Services } from '@quarry/system';
import { createLogger } from '@quarry/telemetry';
import { createTestDatabase, serviceTransportEnv, type TestDatabase } from '@quarry/testing';

const KEY = 'k'.repeat(48);
let database: TestDatabase;
let services: Services;
let dataDir: string;
const INDEXER = { role: 'quarry_indexer', password: 'system-test-indexer' };
// The services call each other, and the test calls them, over the transport of this run.
const transport = serviceTransportEnv().QUARRY_SERVICE_TRANSPORT === 'grpc' ? 'grpc' : 'in-process';
const at = (service: string) => (transport === 'grpc' ? services.addresses[service]! : services.inProcess[service]!);
const signer = createIdentitySigner({ key: KEY, issuer: 'system-test' });
const identity = (): Identity => ({ kind: 'user', orgId: ORG, userId: randomUUID(), requestId: randomUUID() });
const ORG = randomUUID();

beforeAll(async () => {
  database = await createTestDatabase({ schemas: backendSchemas });
  await provisionIndexerRole(database.admin, INDEXER);
  dataDir = mkdtempSync(join(tmpdir(), 'quarry-system-test-'));
  services = await startServices({
    databaseUrl: database.appUrl,
    indexerDatabaseUrl: appUrlFrom(database.adminUrl, INDEXER.role, INDEXER.password),
    identityKey: KEY,
    search: loadConfig(searchBackendsConfigSchema, { QUARRY_DATA_DIR: dataDir }),
    extraction: loadConfig(extractionModelsConfigSchema, {}),
    logger: createLogger({ service: 'system-test', level: 'silent' }),
    transport,
  });
});
afterAll(async () => {
  await services?.close(1000);
  await database?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('startServices', () => {
  it('gives the gateway an address for every backend service, so every tool is served', () => {
    expect(Object.keys(services.addresses).sort()).toEqual([
      'quarry.artifact.v1.ArtifactService',
      'quarry.extraction.v1.ExtractionService',
      'quarry.plan.v1.PlanService',
      'quarry.search.v1.SearchService',
    ]);
    const toolServices = new Set(
      toolCatalogue
        .map((tool) => tool.rpc.service)
        .filter((service) => service !== 'quarry.identity.v1.IdentityService'),
    );
    expect([...toolServices].sort()).toEqual(Object.keys(services.addresses).sort());
    for (const address of Object.values(services.addresses)) expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
    // The same services, for callers in this process (the in-process transport).
    expect(Object.keys(services.inProcess).sort()).toEqual(Object.keys(services.addresses).sort());
    for (const [name, server] of Object.entries(services.inProcess)) expect(server.serviceNames).toEqual([name]);
  });

  it('wires the services to each other over the run’s transport, both ways', async () => {
    const plans = createGrpcClient(planV1.PlanServiceClient, at('quarry.plan.v1.PlanService'), {
      signer,
    });
    const artifacts = createGrpcClient(artifactV1.ArtifactServiceClient, at('quarry.artifact.v1.ArtifactService'), {
      signer,
    });
    try {
      const plan = await plans.call(
        'createResearchPlan',
        planV1.CreateResearchPlanRequest.fromPartial({
          name: 'p',
          researchQuestion: 'q',
          steps: [{ stepType: planV1.StepType.STEP_TYPE_SEARCH, instructions: 'look' }],
        }),
        { identity: identity() },
      );
      // artifact-store → plan-engine: the plan reference is checked before storing.
      const stored = await artifacts.call(
        'storeResearch',
        artifactV1.StoreResearchRequest.fromPartial({
          artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_FINDING,
          title: 'found',
          content: { a: 1 },
          contentText: 'text',
          planId: plan.planId,
        }),
        { identity: identity() },
      );
      await expect(
        artifacts.call(
          'storeResearch',
          artifactV1.StoreResearchRequest.fromPartial({
            artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_FINDING,
            title: 'x',
            content: {},
            planId: randomUUID(),
          }),
          {
            identity: identity(),
          },
        ),
      ).rejects.toMatchObject({ code: 'PLAN_NOT_FOUND' });
      // plan-engine → artifact-store: the plan's artifacts appear in its step context.
      const context = await plans.call(
        'getStepContext',
        planV1.GetStepContextRequest.fromPartial({ planId: plan.planId, stepId: plan.firstStep!.stepId }),
        { identity: identity() },
      );
      expect(context.artifacts.map((a) => a.id)).toEqual([stored.id]);
    } finally {
      plans.close();
      artifacts.close();
    }
  });

  it('indexes what the artifact store writes, and the search service finds it (embedded LanceDB under the data dir)', async () => {
    const artifacts = createGrpcClient(artifactV1.ArtifactServiceClient, at('quarry.artifact.v1.ArtifactService'), {
      signer,
    });
    const search = createGrpcClient(searchV1.SearchServiceClient, at('quarry.search.v1.SearchService'), { signer });
    try {
      const stored = await artifacts.call(
        'storeResearch',
        artifactV1.StoreResearchRequest.fromPartial({
          artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_FINDING,
          title: 'Perovskite stability',
          content: {},
          contentText: 'Perovskite cells degrade under humidity.',
        }),
        { identity: identity() },
      );
      let found: searchV1.SearchSourcesResponse | undefined;
      for (let i = 0; i < 100 && !found?.keywordResults; i++) {
        found = await search.call(
          'searchSources',
          searchV1.SearchSourcesRequest.fromPartial({ query: 'perovskite humidity' }),
          { identity: identity() },
        );
        if (!found.keywordResults) await new Promise((r) => setTimeout(r, 100));
      }
      expect(found?.keywordResults).toBe(1);
      expect(found?.results[0]).toMatchObject({ sourceId: stored.id, inKeyword: true, keywordRank: 1 });
      expect(services.backends.describe).toEqual({
        bm25: 'lancedb',
        vectors: 'lancedb',
        embedder: expect.stringMatching(/^local-/),
      });
      // The indexer reads events as its own role, never as the app role.
      const { rows } = await sql<{ usename: string }>`
        select usename from pg_stat_activity where datname = current_database() and application_name like 'quarry-events:%'`.execute(
        database.admin,
      );
      expect(rows.map((r) => r.usename)).toEqual([INDEXER.role]);
    } finally {
      artifacts.close();
      search.close();
    }
  });
});
