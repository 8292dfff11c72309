import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1 } from '@quarry/contracts';
import { sql } from '@quarry/db';
import { status } from '@quarry/grpc';
import { extraction, failure, notFound, storeFinding } from './extraction-support.js';
import { as, startTestStore, type TestStore } from './support.js';

// DeleteArtifact, DeleteResearchOutput and PurgePlanContent over gRPC against real PostgreSQL:
// the rows are gone (not marked), the outbox keeps no copy of their text, one content-free
// content.deleted event per source is appended, and a deleted, unknown or another org's id all
// answer the same NOT_FOUND. (The indexes' side: services/indexer/test/handler-deletion.test.ts;
// delete_plan: services/plan-engine/test/rpc/delete-plan.test.ts.)

let store: TestStore;
const orgA = randomUUID();
const orgB = randomUUID();

beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => {
  await store?.close();
});

/** Every outbox row mentioning `sourceId`, as the admin. */
async function outboxOf(sourceId: string) {
  const { rows } = await sql<{ org_id: string; topic: string; payload: Record<string, unknown> }>`
    select org_id, topic, payload from events.outbox where payload->>'sourceId' = ${sourceId} order by id
  `.execute(store.database.admin);
  return rows;
}

async function exists(table: string, id: string): Promise<boolean> {
  const { rows } = await sql`select 1 from ${sql.table(table)} where id = ${id}`.execute(store.database.admin);
  return rows.length > 0;
}

const output = (orgId: string, planId: string, content = 'The final report: lithium fell by a fifth.') =>
  store.client.call(
    'storeResearchOutput',
    { planId, mediaType: artifactV1.MediaType.MEDIA_TYPE_MARKDOWN, title: 'Report', content },
    as(orgId),
  );

const outputNotFound = (id: string) => ({
  code: 'OUTPUT_NOT_FOUND',
  status: status.NOT_FOUND,
  message: `No research output ${id} in your organization.`,
  details: undefined,
});

describe('DeleteArtifact', () => {
  it('purges the artifact and the extractions made from it, and leaves one content.deleted per source', async () => {
    const { id } = await storeFinding(store, orgA, { contentText: 'Secret finding about cobalt.' });
    const { extractionId } = await store.client.call(
      'storeExtractionResult',
      extraction({ source: { $case: 'sourceArtifactId', sourceArtifactId: id } }),
      as(orgA),
    );
    expect(await outboxOf(id)).toHaveLength(1);

    const answer = await store.client.call('deleteArtifact', { artifactId: id }, as(orgA));
    expect(answer).toEqual({ artifactId: id, deleted: true, extractionResultsDeleted: 1 });
    expect(await exists('artifact.research_artifacts', id)).toBe(false);
    expect(await exists('artifact.extraction_results', extractionId)).toBe(false);
    for (const [sourceId, sourceTable] of [
      [id, 'research_artifact'],
      [extractionId, 'extraction_result'],
    ]) {
      const rows = await outboxOf(sourceId!);
      expect(rows.map((r) => r.topic)).toEqual(['content.deleted']);
      expect(rows[0]!.payload).toMatchObject({ type: 'content.deleted', orgId: orgA, sourceTable, sourceId });
      expect(JSON.stringify(rows[0]!.payload)).not.toMatch(/cobalt|Vaswani/);
    }
  });

  it('answers ARTIFACT_NOT_FOUND alike for a deleted id (the second delete), a random id and another org’s id', async () => {
    const { id } = await storeFinding(store, orgA);
    const foreign = (await storeFinding(store, orgB)).id;
    await store.client.call('deleteArtifact', { artifactId: id }, as(orgA));
    const random = randomUUID();
    expect(await failure(store.client.call('deleteArtifact', { artifactId: id }, as(orgA)))).toEqual(notFound(id));
    expect(await failure(store.client.call('deleteArtifact', { artifactId: random }, as(orgA)))).toEqual(
      notFound(random),
    );
    expect(await failure(store.client.call('deleteArtifact', { artifactId: foreign }, as(orgA)))).toEqual(
      notFound(foreign),
    );
    expect(await failure(store.client.call('getArtifactText', { artifactId: id }, as(orgA)))).toEqual(notFound(id));
    // The other org's artifact is untouched.
    expect(await exists('artifact.research_artifacts', foreign)).toBe(true);
    expect((await outboxOf(foreign)).map((r) => r.topic)).toEqual(['content.created']);
  });
});

describe('DeleteResearchOutput', () => {
  it('purges the output, and answers OUTPUT_NOT_FOUND alike afterwards, for a random and for another org’s id', async () => {
    const planId = randomUUID();
    const { outputId } = await output(orgA, planId);
    const foreign = (await output(orgB, planId)).outputId;
    expect(await store.client.call('deleteResearchOutput', { outputId }, as(orgA))).toEqual({
      outputId,
      deleted: true,
    });
    expect(await exists('artifact.research_outputs', outputId)).toBe(false);
    expect((await outboxOf(outputId)).map((r) => r.topic)).toEqual(['content.deleted']);
    const random = randomUUID();
    for (const id of [outputId, random, foreign]) {
      expect(await failure(store.client.call('deleteResearchOutput', { outputId: id }, as(orgA)))).toEqual(
        outputNotFound(id),
      );
    }
    expect(await exists('artifact.research_outputs', foreign)).toBe(true);
  });
});

describe('PurgePlanContent', () => {
  it('purges every artifact, output and extraction of the plan in the caller’s org only; again, it answers zeros', async () => {
    const planId = randomUUID();
    const other = randomUUID();
    const a1 = (await storeFinding(store, orgA, { planId })).id;
    const a2 = (await storeFinding(store, orgA, { planId, contentText: 'Second finding.' })).id;
    const keptArtifact = (await storeFinding(store, orgA, { planId: other })).id;
    const foreignSamePlan = (await storeFinding(store, orgB, { planId })).id;
    const { outputId } = await output(orgA, planId);
    const ofPlan = (await store.client.call('storeExtractionResult', extraction({ planId }), as(orgA))).extractionId;
    // Made from an artifact of the plan, though stored without the plan.
    const fromArtifact = (
      await store.client.call(
        'storeExtractionResult',
        extraction({ source: { $case: 'sourceArtifactId', sourceArtifactId: a1 } }),
        as(orgA),
      )
    ).extractionId;

    const answer = await store.client.call('purgePlanContent', { planId }, as(orgA));
    expect(answer).toEqual({ artifactsDeleted: 2, outputsDeleted: 1, extractionResultsDeleted: 2 });
    for (const [table, id] of [
      ['artifact.research_artifacts', a1],
      ['artifact.research_artifacts', a2],
      ['artifact.research_outputs', outputId],
      ['artifact.extraction_results', ofPlan],
      ['artifact.extraction_results', fromArtifact],
    ] as const) {
      expect(await exists(table, id)).toBe(false);
      expect((await outboxOf(id)).map((r) => [r.topic, r.payload.planId ?? null])).toEqual([
        ['content.deleted', table === 'artifact.extraction_results' && id === fromArtifact ? null : planId],
      ]);
    }
    expect(await exists('artifact.research_artifacts', keptArtifact)).toBe(true);
    expect(await exists('artifact.research_artifacts', foreignSamePlan)).toBe(true);

    // A retry (the plan engine failed after the purge) finds nothing: zeros, no new events.
    const before = (await sql`select count(*)::int as n from events.outbox`.execute(store.database.admin)).rows;
    expect(await store.client.call('purgePlanContent', { planId }, as(orgA))).toEqual({
      artifactsDeleted: 0,
      outputsDeleted: 0,
      extractionResultsDeleted: 0,
    });
    expect((await sql`select count(*)::int as n from events.outbox`.execute(store.database.admin)).rows).toEqual(
      before,
    );
  });
});
