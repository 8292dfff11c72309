import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1 } from '@quarry/contracts';
import { assertTenantSafety, createDb, rlsReport, sql } from '@quarry/db';
import { eventsSchemas } from '@quarry/events';
import { createGrpcClient, createIdentitySigner, createIdentityVerifier, type GrpcServer, type Identity } from '@quarry/grpc';
import { createLogger } from '@quarry/telemetry';
import { createTestDatabase, TEST_APP_ROLE, type TestDatabase } from '@quarry/testing';
import type { Kysely } from 'kysely';
import { artifactSchemas, buildServer, type ArtifactDatabase, type PlanReferences } from '../src/index.js';

// The `artifact` schema's tenancy, and the outbox guarantee: a row and its content.created event
// are written in one transaction, so when the event cannot be written the row is not either.
// (The tools end to end, through the gateway and the real plan engine, are in
// services/gateway/test/artifact-tools.e2e.test.ts.)

const KEY = 'k'.repeat(48);
let database: TestDatabase;
let db: Kysely<ArtifactDatabase>;
let server: GrpcServer;
let client: ReturnType<typeof createGrpcClient<typeof artifactV1.ArtifactServiceService>>;
const orgA = randomUUID();
const orgB = randomUUID();
/** Every plan reference resolves: the plan engine's checks are covered end to end elsewhere. */
const plans: PlanReferences = { resolve: async () => {}, close: () => {} };
const as = (orgId: string): { identity: Identity } => ({ identity: { kind: 'user', orgId, userId: randomUUID(), requestId: randomUUID() } });

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...eventsSchemas, ...artifactSchemas] });
  db = createDb<ArtifactDatabase>({ connectionString: database.appUrl, max: 2 });
  const logger = createLogger({ service: 'artifact-store-test', level: 'silent' });
  server = buildServer({ db, plans, logger, verifier: createIdentityVerifier({ key: KEY }) });
  const port = await server.listen('127.0.0.1', 0);
  client = createGrpcClient(artifactV1.ArtifactServiceClient, `127.0.0.1:${port}`, { signer: createIdentitySigner({ key: KEY, issuer: 'test' }) });
});
afterAll(async () => {
  client?.close();
  await server?.shutdown(1000);
  await db?.destroy();
  await database?.drop();
});

const count = async (table: string) =>
  (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(database.admin)).rows[0]!.n;

const finding = (text: string): artifactV1.StoreResearchRequest => ({
  artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_FINDING,
  title: text,
  content: { text },
  contentText: text,
  tags: [],
});

describe('the artifact schema is tenant-safe', () => {
  it('has RLS enabled and forced with the tenant policy on both tables, and the app role owns nothing', async () => {
    await expect(assertTenantSafety(database.admin, { schemas: ['artifact'], appRole: TEST_APP_ROLE })).resolves.toBeUndefined();
    const tables = (await rlsReport(database.admin, ['artifact'])).filter((t) => !t.table.startsWith('kysely_migration'));
    expect(tables.map((t) => ({ table: t.table, hasOrgId: t.hasOrgId, enabled: t.rlsEnabled, forced: t.rlsForced, policies: t.policies }))).toEqual([
      { table: 'research_artifacts', hasOrgId: true, enabled: true, forced: true, policies: ['tenant_isolation'] },
      { table: 'research_outputs', hasOrgId: true, enabled: true, forced: true, policies: ['tenant_isolation'] },
    ]);
  });

  it("lists only the caller's org's artifacts of a plan", async () => {
    const planId = randomUUID();
    const mine = await client.call('storeResearch', { ...finding('mine'), planId }, as(orgA));
    await client.call('storeResearch', { ...finding('theirs'), planId }, as(orgB));
    const listed = await client.call('listPlanArtifacts', { planId }, as(orgA));
    expect(listed.artifacts.map((x) => [x.id, x.title])).toEqual([[mine.id, 'mine']]);
    expect((await client.call('listPlanArtifacts', { planId: 'not-a-uuid' }, as(orgA))).artifacts).toEqual([]);
  });
});

describe('a row and its event commit together', () => {
  it('stores neither the artifact nor the output when the event cannot be written', async () => {
    const before = { artifacts: await count('artifact.research_artifacts'), outputs: await count('artifact.research_outputs'), events: await count('events.outbox') };
    await sql`revoke insert on events.outbox from ${sql.id(TEST_APP_ROLE)}`.execute(database.admin);
    try {
      await expect(client.call('storeResearch', finding('lost'), as(orgA))).rejects.toThrow();
      const output = { planId: randomUUID(), mediaType: artifactV1.MediaType.MEDIA_TYPE_MARKDOWN, title: 'lost', content: 'lost' };
      await expect(client.call('storeResearchOutput', output, as(orgA))).rejects.toThrow();
    } finally {
      await sql`grant insert on events.outbox to ${sql.id(TEST_APP_ROLE)}`.execute(database.admin);
    }
    expect({ artifacts: await count('artifact.research_artifacts'), outputs: await count('artifact.research_outputs'), events: await count('events.outbox') }).toEqual(before);

    const stored = await client.call('storeResearch', finding('kept'), as(orgA));
    expect(await count('artifact.research_artifacts')).toBe(before.artifacts + 1);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from events.outbox where payload->>'sourceId' = ${stored.id}`.execute(database.admin);
    expect(rows[0]!.n).toBe(1);
  });
});
