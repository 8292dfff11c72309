import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1 } from '@quarry/contracts';
import { sql } from '@quarry/db';
import { failure, notFound, storeFinding } from './extraction-support.js';
import { as, startTestStore, type TestStore } from './support.js';

// list_artifacts, list_tags and update_artifact_tags at the artifact store's gRPC boundary, over
// real PostgreSQL: most recent first and paginated, counts per tag, idempotent tag updates with
// a new version of the content.created event, and each org sees only its own.

const { ArtifactType } = artifactV1;
let store: TestStore;

beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => {
  await store?.close();
});

/** The content.created events written for a source, oldest first. */
async function eventsOf(sourceId: string) {
  const { rows } = await sql<{ payload: { tags?: string[]; text: string; title: string; occurredAt: string } }>`
    select payload from events.outbox where payload->>'sourceId' = ${sourceId} order by id
  `.execute(store.database.admin);
  return rows.map((r) => r.payload);
}

describe('list_artifacts', () => {
  it('lists most recent first, a page at a time, without skipping or repeating', async () => {
    const org = randomUUID();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await storeFinding(store, org, { title: `Finding ${i}` })).id);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.client.call('listArtifacts', { tags: [], limit: 3, cursor }, as(org));
      expect(page.artifacts.length).toBeLessThanOrEqual(3);
      seen.push(...page.artifacts.map((a) => a.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    const first = (await store.client.call('listArtifacts', { tags: [], limit: 1 }, as(org))).artifacts[0]!;
    expect(first).toMatchObject({ id: ids[6], title: 'Finding 6', url: `quarry://artifacts/${ids[6]}` });
  });

  it('filters by plan, kind, every tag and creation time', async () => {
    const org = randomUUID();
    const planId = randomUUID();
    const a = await storeFinding(store, org, { planId, tags: ['x', 'y'] });
    const b = await storeFinding(store, org, { tags: ['x'], artifactType: ArtifactType.ARTIFACT_TYPE_SUMMARY });
    const list = async (req: Partial<artifactV1.ListArtifactsRequest>) =>
      (await store.client.call('listArtifacts', { tags: [], ...req }, as(org))).artifacts.map((r) => r.id);
    expect(await list({ planId })).toEqual([a.id]);
    expect(await list({ artifactType: ArtifactType.ARTIFACT_TYPE_SUMMARY })).toEqual([b.id]);
    expect(await list({ tags: ['x'] })).toEqual([b.id, a.id]);
    expect(await list({ tags: ['x', 'y'] })).toEqual([a.id]);
    expect(await list({ createdSince: new Date(Date.now() + 60_000) })).toEqual([]);
    expect(await list({ createdSince: new Date(Date.now() - 60_000) })).toEqual([b.id, a.id]);
    expect(await list({ planId: 'not-a-uuid' })).toEqual([]);
  });

  it('refuses a cursor under other filters, and lists nothing of another org', async () => {
    const org = randomUUID();
    await storeFinding(store, org, { tags: ['p'] });
    await storeFinding(store, org, { tags: ['p'] });
    const { nextCursor } = await store.client.call('listArtifacts', { tags: ['p'], limit: 1 }, as(org));
    expect((await failure(store.client.call('listArtifacts', { tags: [], cursor: nextCursor }, as(org)))).code).toBe(
      'INVALID_CURSOR',
    );
    expect((await store.client.call('listArtifacts', { tags: ['p'] }, as(randomUUID()))).artifacts).toEqual([]);
  });
});

describe('list_tags', () => {
  it('counts tags per org, most used first', async () => {
    const org = randomUUID();
    await storeFinding(store, org, { tags: ['b', 'a'] });
    await storeFinding(store, org, { tags: ['b'] });
    await storeFinding(store, randomUUID(), { tags: ['b', 'secret'] });
    expect((await store.client.call('listTags', {}, as(org))).tags).toEqual([
      { tag: 'b', count: 2 },
      { tag: 'a', count: 1 },
    ]);
  });
});

describe('update_artifact_tags', () => {
  it('adds and removes, idempotently, with one new content.created version per change', async () => {
    const org = randomUUID();
    const { id } = await storeFinding(store, org, { tags: ['old'], contentText: 'Nickel is flat.' });
    const update = (add: string[], remove: string[]) =>
      store.client.call('updateArtifactTags', { id, add, remove }, as(org));
    expect(await update(['new', 'old'], ['old'])).toEqual({ id, tags: ['new'], changed: true });
    expect(await update(['new', 'old'], ['old'])).toEqual({ id, tags: ['new'], changed: false });
    expect(await update([], [])).toEqual({ id, tags: ['new'], changed: false });
    expect((await store.client.call('getArtifact', { id }, as(org))).tags).toEqual(['new']);
    const events = await eventsOf(id);
    expect(events.map((e) => e.tags)).toEqual([['old'], ['new']]);
    // The same source, text and title: only the tags differ, so the indexer re-upserts in place.
    expect(events[1]).toMatchObject({ text: events[0]!.text, title: events[0]!.title });
    expect(Date.parse(events[1]!.occurredAt)).toBeGreaterThanOrEqual(Date.parse(events[0]!.occurredAt));
  });

  it('refuses more than 50 tags and a blank tag, and changes nothing', async () => {
    const org = randomUUID();
    const { id } = await storeFinding(store, org, { tags: ['keep'] });
    const many = Array.from({ length: 50 }, (_, i) => `t${i}`);
    expect((await failure(store.client.call('updateArtifactTags', { id, add: many, remove: [] }, as(org)))).code).toBe(
      'INVALID_ARGUMENT',
    );
    expect((await failure(store.client.call('updateArtifactTags', { id, add: [''], remove: [] }, as(org)))).code).toBe(
      'INVALID_ARGUMENT',
    );
    expect((await store.client.call('getArtifact', { id }, as(org))).tags).toEqual(['keep']);
    expect(await eventsOf(id)).toHaveLength(1);
  });

  it("treats another org's, a missing and a malformed id alike, and changes nothing", async () => {
    const org = randomUUID();
    const { id } = await storeFinding(store, org, { tags: ['mine'] });
    for (const probe of [id, randomUUID(), 'nope'])
      expect(
        await failure(
          store.client.call('updateArtifactTags', { id: probe, add: ['x'], remove: ['mine'] }, as(randomUUID())),
        ),
      ).toEqual(notFound(probe));
    expect((await store.client.call('getArtifact', { id }, as(org))).tags).toEqual(['mine']);
    expect(await eventsOf(id)).toHaveLength(1);
  });
});
