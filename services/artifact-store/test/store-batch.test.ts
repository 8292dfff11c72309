import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import { QuarryError } from '@quarry/grpc';
import { as, startTestStore, type TestStore } from './support.js';

// store_research_batch at the gRPC boundary, with the real plan engine behind plan references:
// items are checked one by one like store_research calls, the good ones are stored with their
// events in one transaction, each refusal is reported in its own result, and another org's
// plan is refused exactly like a missing one.

let store: TestStore;
const orgA = randomUUID();
const orgB = randomUUID();
let planA: { planId: string; stepId: string };
let planB: { planId: string; stepId: string };

beforeAll(async () => {
  store = await startTestStore({ planEngine: true });
  planA = await store.plans.create(orgA);
  planB = await store.plans.create(orgB);
});
afterAll(async () => {
  await store?.close();
});

/** An item as a client sends it: store_research's JSON arguments. */
const item = (title: string, over: Record<string, unknown> = {}) => ({
  artifactType: 'finding',
  title,
  content: { title },
  contentText: `text of ${title}`,
  ...over,
});

const batch = (orgId: string, artifacts: Record<string, unknown>[]) =>
  store.client.call('storeResearchBatch', { artifacts }, as(orgId));

/** The outbox events of the given sources (as the admin), by source id. */
async function eventsOf(ids: readonly string[]) {
  const { rows } = await sql<{ org_id: string; payload: { sourceId: string; title: string; createdAt: string } }>`
    select org_id, payload from events.outbox where payload->>'sourceId' = any(${ids})`.execute(store.database.admin);
  return new Map(rows.map((r) => [r.payload.sourceId, r]));
}

describe('storeResearchBatch', () => {
  it('stores every item with its event, one result per item in order', async () => {
    const titles = Array.from({ length: 30 }, (_, i) => `batch ${i}`);
    const res = await batch(orgA, [
      ...titles.map((t) => item(t)),
      item('tagged', { tags: ['x', 'y'], confidence: 0.5 }),
    ]);
    expect(res.stored).toBe(31);
    expect(res.refused).toBe(0);
    const ids = res.results.map((r) => r.id!);
    expect(new Set(ids).size).toBe(31);
    expect(res.results.every((r) => r.errorCode === undefined)).toBe(true);

    // Each id is the artifact of its own item, readable like a store_research one.
    for (const [i, title] of [...titles, 'tagged'].entries()) {
      const got = await store.client.call('getArtifact', { id: ids[i]! }, as(orgA));
      expect(got.title).toBe(title);
    }
    const tagged = await store.client.call('getArtifact', { id: ids[30]! }, as(orgA));
    expect(tagged).toMatchObject({ tags: ['x', 'y'], confidence: 0.5 });

    const events = await eventsOf(ids);
    expect(events.size).toBe(31);
    for (const [i, title] of [...titles, 'tagged'].entries()) {
      expect(events.get(ids[i]!)).toMatchObject({ org_id: orgA, payload: { title } });
    }
  });

  it('reports each bad item in its result and stores the good ones', async () => {
    const before = await store.count('artifact.research_artifacts');
    const res = await batch(orgA, [
      item('good 1'),
      item('no type', { artifactType: 'poem' }),
      { title: 'no content', artifactType: 'finding' },
      item('step without plan', { stepId: planA.stepId }),
      item('too long', { contentText: 'x'.repeat(1024 * 1024 + 1) }),
      item('unknown field', { colour: 'blue' }),
      item('good 2', { planId: planA.planId, stepId: planA.stepId }),
      item('missing plan', { planId: randomUUID() }),
    ]);
    expect(res).toMatchObject({ stored: 2, refused: 6 });
    expect(res.results.map((r) => r.errorCode ?? 'stored')).toEqual([
      'stored',
      'INVALID_ARGUMENT',
      'INVALID_ARGUMENT',
      'INVALID_ARGUMENT',
      'INVALID_ARGUMENT',
      'INVALID_ARGUMENT',
      'stored',
      'PLAN_NOT_FOUND',
    ]);
    expect(res.results[1]!.error).toMatch(/artifacts\[1\].*artifactType/);
    expect(res.results[2]!.error).toMatch(/content.*required/);
    expect(res.results[3]!.error).toMatch(/stepId/);
    expect(res.results[5]!.error).toMatch(/colour/);
    expect(res.results.filter((r) => r.id).length).toBe(2);
    expect(await store.count('artifact.research_artifacts')).toBe(before + 2);
    const good2 = await store.client.call('getArtifact', { id: res.results[6]!.id! }, as(orgA));
    expect(good2).toMatchObject({ title: 'good 2', planId: planA.planId, stepId: planA.stepId });
  });

  it("refuses another org's plan exactly like a missing one, and stores nothing when every item is refused", async () => {
    const before = {
      artifacts: await store.count('artifact.research_artifacts'),
      events: await store.count('events.outbox'),
    };
    const res = await batch(orgA, [
      item('foreign plan', { planId: planB.planId }),
      item('missing plan', { planId: randomUUID() }),
    ]);
    expect(res).toMatchObject({ stored: 0, refused: 2 });
    expect(res.results.map((r) => r.errorCode)).toEqual(['PLAN_NOT_FOUND', 'PLAN_NOT_FOUND']);
    expect(res.results[0]!.error!.replace(planB.planId, 'X')).toBe(
      res.results[1]!.error!.replace(/[0-9a-f-]{36}/, 'X'),
    );
    expect({
      artifacts: await store.count('artifact.research_artifacts'),
      events: await store.count('events.outbox'),
    }).toEqual(before);
  });

  it("stores under the caller's org only: another org cannot read, list or find them", async () => {
    const res = await batch(orgB, [item('b secret 1'), item('b secret 2')]);
    const ids = res.results.map((r) => r.id!);
    for (const id of ids) {
      await expect(store.client.call('getArtifact', { id }, as(orgA))).rejects.toMatchObject({
        code: 'ARTIFACT_NOT_FOUND',
      });
      expect((await store.client.call('getArtifact', { id }, as(orgB))).title).toMatch(/b secret/);
    }
    const listedByA = await store.client.call('listArtifacts', { tags: [] }, as(orgA));
    expect(listedByA.artifacts.some((a) => ids.includes(a.id))).toBe(false);
    expect([...(await eventsOf(ids)).values()].map((e) => e.org_id)).toEqual([orgB, orgB]);
  });

  it('refuses an empty call and one over 100 items as a whole', async () => {
    const before = await store.count('artifact.research_artifacts');
    for (const artifacts of [[], Array.from({ length: 101 }, (_, i) => item(`n${i}`))]) {
      const error = await batch(orgA, artifacts).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(QuarryError);
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/1 to 100/) });
    }
    expect(await store.count('artifact.research_artifacts')).toBe(before);
  });
});
