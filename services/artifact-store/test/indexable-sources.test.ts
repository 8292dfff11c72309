import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1 } from '@quarry/contracts';
import { sql, type AnyDb } from '@quarry/db';
import type { ContentCreatedV1 } from '@quarry/events';
import { countIndexableSources, indexableSources } from '../src/index.js';
import { extraction } from './extraction-support.js';
import { as, startTestStore, type TestStore } from './support.js';

// What `quarry reindex` reads: every stored source of an org rebuilt as the content.created event
// its row stands for today, equal to the newest event the write path emitted for it (title, text,
// plan, step, type, tags, creation time), deleted rows absent, another org's rows never read.

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore({ planEngine: true });
});
afterAll(async () => {
  await store?.close();
});

/**
 * What the indexes keep of an event, which must not depend on where it came from. JSON values
 * come back from jsonb with their keys in its order (shorter keys first), so text made of a
 * JSON value's leaves (an extraction's lines, and hence the values its title starts with) is
 * compared as a set of lines.
 */
const indexed = (e: ContentCreatedV1) => ({
  orgId: e.orgId,
  sourceTable: e.sourceTable,
  sourceId: e.sourceId,
  planId: e.planId,
  stepId: e.stepId,
  artifactType: e.artifactType,
  title: e.sourceTable === 'extraction_result' ? e.title.split(':')[0] : e.title,
  text: e.text.split('\n').sort(),
  tags: e.tags,
  createdAt: e.createdAt && new Date(e.createdAt).toISOString(),
});

/** The newest content.created of each source in the outbox, as the admin reads it. */
async function newestEmitted(orgId: string): Promise<ContentCreatedV1[]> {
  const { rows } = await sql<{ payload: ContentCreatedV1 }>`
    select distinct on (payload->>'sourceId') payload from events.outbox
    where org_id = ${orgId} and topic = 'content.created' order by payload->>'sourceId', id desc`.execute(
    store.database.admin,
  );
  return rows.map((r) => r.payload);
}

async function rebuilt(orgId: string, pageSize?: number, db: AnyDb = store.db) {
  const events: ContentCreatedV1[] = [];
  let skipped = 0;
  for await (const page of indexableSources(db, orgId, pageSize)) {
    expect(page.events.length + page.skipped).toBeLessThanOrEqual(pageSize ?? 200);
    events.push(...page.events);
    skipped += page.skipped;
  }
  return { events, skipped };
}

const bySource = (a: { sourceId: string }, b: { sourceId: string }) => a.sourceId.localeCompare(b.sourceId);

describe('indexableSources', () => {
  it('rebuilds every kind of source as the write path emitted it, with current tags, without deleted rows', async () => {
    const org = randomUUID();
    const plan = await store.plans.create(org);
    const finding = (title: string, over: Partial<artifactV1.StoreResearchRequest> = {}) =>
      store.client.call(
        'storeResearch',
        {
          artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_FINDING,
          title,
          content: { claim: `${title} claim`, nested: { note: 'from the content' } },
          tags: [],
          ...over,
        },
        as(org),
      );
    const tagged = await finding('Tagged', { planId: plan.planId, stepId: plan.stepId, tags: ['a'] });
    await finding('Own text', { contentText: 'A text of its own.' });
    const gone = await finding('Deleted later');
    await store.client.call('updateArtifactTags', { id: tagged.id, add: ['b'], remove: ['a'] }, as(org));
    await store.client.call('deleteArtifact', { artifactId: gone.id }, as(org));
    await store.client.call(
      'submitSubagentReport',
      { planId: plan.planId, stepId: plan.stepId, description: 'Survey\nmore lines', report: { found: ['x', 'y'] } },
      as(org),
    );
    await store.client.call(
      'storeResearchOutput',
      {
        planId: plan.planId,
        mediaType: artifactV1.MediaType.MEDIA_TYPE_MARKDOWN,
        title: 'Report',
        content: '# Body',
        contentSummary: 'Summary',
      },
      as(org),
    );
    await store.client.call(
      'storeResearchOutput',
      {
        planId: plan.planId,
        mediaType: artifactV1.MediaType.MEDIA_TYPE_WORD,
        title: 'Binary',
        content: Buffer.from('PK\u0003\u0004 not really a docx').toString('base64'),
        contentSummary: 'What the document says',
      },
      as(org),
    );
    await store.client.call('storeExtractionResult', extraction({ planId: plan.planId }), as(org));
    // Another org's row is never read.
    await store.client.call(
      'storeResearch',
      { artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_FINDING, title: 'x', content: { a: 'b' }, tags: [] },
      as(randomUUID()),
    );

    const emitted = await newestEmitted(org);
    expect(emitted.map((e) => e.sourceTable).sort()).toEqual([
      'extraction_result',
      'research_artifact',
      'research_artifact',
      'research_artifact',
      'research_output',
      'research_output',
    ]);
    for (const pageSize of [200, 2]) {
      const { events, skipped } = await rebuilt(org, pageSize);
      expect(skipped).toBe(0);
      expect(events.map(indexed).sort(bySource)).toEqual(emitted.map(indexed).sort(bySource));
      expect(events.map((e) => e.sourceId)).not.toContain(gone.id);
      expect(events.find((e) => e.sourceId === tagged.id)?.tags).toEqual(['b']);
    }
    expect(await countIndexableSources(store.db, org)).toBe(6);
    expect(await countIndexableSources(store.db, randomUUID())).toBe(0);
    expect((await rebuilt(randomUUID())).events).toEqual([]);
    // The admin `quarry reindex` uses may be a superuser, past row level security: still one org only.
    const asAdmin = await rebuilt(org, 200, store.database.admin);
    expect(asAdmin.events.map(indexed).sort(bySource)).toEqual(emitted.map(indexed).sort(bySource));
    expect(await countIndexableSources(store.database.admin, org)).toBe(6);
    expect((await rebuilt(randomUUID(), 200, store.database.admin)).events).toEqual([]);
  });
});
