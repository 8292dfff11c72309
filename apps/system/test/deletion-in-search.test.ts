import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@quarry/config';
import { artifactV1, planV1, searchV1 } from '@quarry/contracts';
import { appUrlFrom } from '@quarry/db';
import { createGrpcClient, createIdentitySigner, type Identity } from '@quarry/grpc';
import { extractionModelsConfigSchema } from '@quarry/extraction';
import { searchBackendsConfigSchema } from '@quarry/search-index';
import { backendSchemas, provisionIndexerRole, startServices, type Services } from '@quarry/system';
import { createLogger } from '@quarry/telemetry';
import { createTestDatabase, serviceTransportEnv, type TestDatabase } from '@quarry/testing';

// A deletion takes effect in search at once, however far behind the indexer is: with the indexer
// stopped (so the deleted sources' chunks stay in both indexes), search_sources and search never
// list a deleted artifact or anything of a deleted plan, keep their page full with what is still
// stored, and another org's identical content is untouched. Real PostgreSQL, real services.

const KEY = 'k'.repeat(48);
const INDEXER = { role: 'quarry_indexer', password: 'deletion-test-indexer' };
// The services call each other, and the test calls them, over the transport of this run.
const transport = serviceTransportEnv().QUARRY_SERVICE_TRANSPORT === 'grpc' ? 'grpc' : 'in-process';
const at = (service: string) => (transport === 'grpc' ? services.addresses[service]! : services.inProcess[service]!);
const signer = createIdentitySigner({ key: KEY, issuer: 'deletion-test' });
const orgA = randomUUID();
const orgB = randomUUID();
const as = (orgId: string): { identity: Identity } => ({
  identity: { kind: 'user', orgId, userId: randomUUID(), requestId: randomUUID() },
});

let database: TestDatabase;
let services: Services;
let dataDir: string;
let plans: ReturnType<typeof createGrpcClient<typeof planV1.PlanServiceService>>;
let artifacts: ReturnType<typeof createGrpcClient<typeof artifactV1.ArtifactServiceService>>;
let search: ReturnType<typeof createGrpcClient<typeof searchV1.SearchServiceService>>;

beforeAll(async () => {
  database = await createTestDatabase({ schemas: backendSchemas });
  await provisionIndexerRole(database.admin, INDEXER);
  dataDir = mkdtempSync(join(tmpdir(), 'quarry-deletion-test-'));
  services = await startServices({
    databaseUrl: database.appUrl,
    indexerDatabaseUrl: appUrlFrom(database.adminUrl, INDEXER.role, INDEXER.password),
    identityKey: KEY,
    search: loadConfig(searchBackendsConfigSchema, { QUARRY_DATA_DIR: dataDir }),
    extraction: loadConfig(extractionModelsConfigSchema, {}),
    logger: createLogger({ service: 'deletion-test', level: 'silent' }),
    transport,
  });
  plans = createGrpcClient(planV1.PlanServiceClient, at('quarry.plan.v1.PlanService'), { signer });
  artifacts = createGrpcClient(artifactV1.ArtifactServiceClient, at('quarry.artifact.v1.ArtifactService'), { signer });
  search = createGrpcClient(searchV1.SearchServiceClient, at('quarry.search.v1.SearchService'), {
    signer,
  });
}, 60_000);
afterAll(async () => {
  plans?.close();
  artifacts?.close();
  search?.close();
  await services?.close(1000);
  await database?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const QUERY = 'basalt columns cooling lava';

async function store(orgId: string, title: string, planId?: string): Promise<string> {
  const { id } = await artifacts.call(
    'storeResearch',
    artifactV1.StoreResearchRequest.fromPartial({
      artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_FINDING,
      title,
      content: {},
      contentText: `${title}: basalt columns form as lava cools and contracts.`,
      ...(planId ? { planId } : {}),
    }),
    as(orgId),
  );
  return id;
}

const searchSources = (orgId: string, limit = 50) =>
  search.call('searchSources', searchV1.SearchSourcesRequest.fromPartial({ query: QUERY, limit }), as(orgId));
const sourceIds = async (orgId: string, limit?: number) =>
  (await searchSources(orgId, limit)).results.map((r) => r.sourceId).sort();
const chatGptIds = async (orgId: string) =>
  (await search.call('search', { query: QUERY }, as(orgId))).results.map((r) => r.id).sort();

/** Every source id the BM25 index itself holds for the query in `orgId`, past the service's check. */
const indexed = async (orgId: string) =>
  new Set((await services.backends.bm25.search(QUERY, { orgId, limit: 200 })).map((h) => h.sourceId));

describe('a deletion while the indexer is stopped', () => {
  it('never shows in search_sources or search, keeps the page full, and leaves another org alone', async () => {
    const plan = await plans.call(
      'createResearchPlan',
      planV1.CreateResearchPlanRequest.fromPartial({
        name: 'Basalt',
        researchQuestion: 'How do basalt columns form?',
        steps: [{ stepType: planV1.StepType.STEP_TYPE_SEARCH, instructions: 'look' }],
      }),
      as(orgA),
    );
    const ofPlan = [];
    for (let i = 0; i < 4; i++) ofPlan.push(await store(orgA, `Plan finding ${i}`, plan.planId));
    const alone = await store(orgA, 'Lone finding');
    const kept = [];
    for (let i = 0; i < 3; i++) kept.push(await store(orgA, `Kept finding ${i}`));
    const foreign = await store(orgB, 'Lone finding');
    const all = [...ofPlan, alone, ...kept];

    for (let i = 0; i < 200 && (await sourceIds(orgA)).length < all.length; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(await sourceIds(orgA)).toEqual([...all].sort());

    await services.indexer.close();
    await artifacts.call('deleteArtifact', { artifactId: alone }, as(orgA));
    expect(await plans.call('deletePlan', { planId: plan.planId }, as(orgA))).toMatchObject({ artifactsDeleted: 4 });

    // The indexes still hold every deleted source: only the check keeps them out.
    const stillIndexed = await indexed(orgA);
    for (const id of [...ofPlan, alone]) expect(stillIndexed.has(id)).toBe(true);

    const answer = await searchSources(orgA);
    expect(answer.results.map((r) => r.sourceId).sort()).toEqual([...kept].sort());
    expect(answer).toMatchObject({ resultCount: 3, keywordResults: 3 });
    expect(await chatGptIds(orgA)).toEqual([...kept].sort());
    // A page of 3 is still full: deleted sources ranked above the kept ones take no place in it.
    expect(await sourceIds(orgA, 3)).toEqual([...kept].sort());
    // Org B's identical item is still found by org B, and only by it.
    expect(await sourceIds(orgB)).toEqual([foreign]);
    expect(await chatGptIds(orgB)).toEqual([foreign]);
  }, 60_000);
});
