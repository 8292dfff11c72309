import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1 } from '@quarry/contracts';
import { assertTenantSafety, rlsReport, sql } from '@quarry/db';
import { TEST_APP_ROLE } from '@quarry/testing';
import { as, startTestStore, type TestStore } from './support.js';

// The `artifact` schema's tenancy, and the outbox guarantee: a row and its content.created event
// are written in one transaction, so when the event cannot be written the row is not either.
// (The tools end to end, through the gateway and the real plan engine, are in
// services/gateway/test/library-artifacts.suite.ts.)

let store: TestStore;
const orgA = randomUUID();
const orgB = randomUUID();

beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => {
  await store?.close();
});

const finding = (text: string): artifactV1.StoreResearchRequest => ({
  artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_FINDING,
  title: text,
  content: { text },
  contentText: text,
  tags: [],
});

describe('the artifact schema is tenant-safe', () => {
  it('has RLS enabled and forced with the tenant policy on every table, and the app role owns nothing', async () => {
    await expect(
      assertTenantSafety(store.database.admin, { schemas: ['artifact'], appRole: TEST_APP_ROLE }),
    ).resolves.toBeUndefined();
    const tables = (await rlsReport(store.database.admin, ['artifact'])).filter(
      (t) => !t.table.startsWith('kysely_migration'),
    );
    expect(
      tables.map((t) => ({
        table: t.table,
        hasOrgId: t.hasOrgId,
        enabled: t.rlsEnabled,
        forced: t.rlsForced,
        policies: t.policies,
      })),
    ).toEqual([
      { table: 'document_figures', hasOrgId: true, enabled: true, forced: true, policies: ['tenant_isolation'] },
      { table: 'documents', hasOrgId: true, enabled: true, forced: true, policies: ['tenant_isolation'] },
      { table: 'entities', hasOrgId: true, enabled: true, forced: true, policies: ['tenant_isolation'] },
      { table: 'entity_audit', hasOrgId: true, enabled: true, forced: true, policies: ['tenant_isolation'] },
      { table: 'entity_names', hasOrgId: true, enabled: true, forced: true, policies: ['tenant_isolation'] },
      { table: 'entity_relations', hasOrgId: true, enabled: true, forced: true, policies: ['tenant_isolation'] },
      { table: 'extraction_results', hasOrgId: true, enabled: true, forced: true, policies: ['tenant_isolation'] },
      { table: 'org_quotas', hasOrgId: true, enabled: true, forced: true, policies: ['tenant_isolation'] },
      { table: 'org_usage', hasOrgId: true, enabled: true, forced: true, policies: ['tenant_isolation'] },
      { table: 'relation_evidence', hasOrgId: true, enabled: true, forced: true, policies: ['tenant_isolation'] },
      { table: 'research_artifacts', hasOrgId: true, enabled: true, forced: true, policies: ['tenant_isolation'] },
      { table: 'research_outputs', hasOrgId: true, enabled: true, forced: true, policies: ['tenant_isolation'] },
    ]);
  });

  it("lists only the caller's org's artifacts of a plan", async () => {
    const planId = randomUUID();
    const mine = await store.client.call('storeResearch', { ...finding('mine'), planId }, as(orgA));
    await store.client.call('storeResearch', { ...finding('theirs'), planId }, as(orgB));
    const listed = await store.client.call('listPlanArtifacts', { planId }, as(orgA));
    expect(listed.artifacts.map((x) => [x.id, x.title])).toEqual([[mine.id, 'mine']]);
    expect((await store.client.call('listPlanArtifacts', { planId: 'not-a-uuid' }, as(orgA))).artifacts).toEqual([]);
  });
});

describe('a row and its event commit together', () => {
  it('stores neither the artifact nor the output when the event cannot be written', async () => {
    const before = {
      artifacts: await store.count('artifact.research_artifacts'),
      outputs: await store.count('artifact.research_outputs'),
      events: await store.count('events.outbox'),
    };
    await sql`revoke insert on events.outbox from ${sql.id(TEST_APP_ROLE)}`.execute(store.database.admin);
    try {
      await expect(store.client.call('storeResearch', finding('lost'), as(orgA))).rejects.toThrow();
      const output = {
        planId: randomUUID(),
        mediaType: artifactV1.MediaType.MEDIA_TYPE_MARKDOWN,
        title: 'lost',
        content: 'lost',
      };
      await expect(store.client.call('storeResearchOutput', output, as(orgA))).rejects.toThrow();
    } finally {
      await sql`grant insert on events.outbox to ${sql.id(TEST_APP_ROLE)}`.execute(store.database.admin);
    }
    expect({
      artifacts: await store.count('artifact.research_artifacts'),
      outputs: await store.count('artifact.research_outputs'),
      events: await store.count('events.outbox'),
    }).toEqual(before);

    const stored = await store.client.call('storeResearch', finding('kept'), as(orgA));
    expect(await store.count('artifact.research_artifacts')).toBe(before.artifacts + 1);
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from events.outbox where payload->>'sourceId' = ${stored.id}`.execute(
      store.database.admin,
    );
    expect(rows[0]!.n).toBe(1);
  });
});
