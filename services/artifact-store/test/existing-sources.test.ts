import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1 } from '@quarry/contracts';
import { status } from '@quarry/grpc';
import { extraction, failure, storeFinding } from './extraction-support.js';
import { as, startTestStore, type TestStore } from './support.js';

// ExistingSources over gRPC against real PostgreSQL: the search service's check that what an
// index returned is still stored. Deleted, unknown, malformed and other orgs' ids are all absent.

let store: TestStore;
const orgA = randomUUID();
const orgB = randomUUID();

beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => {
  await store?.close();
});

const existing = (orgId: string, sources: artifactV1.SourceIds) =>
  store.client.call('existingSources', { sources }, as(orgId)).then((r) => r.existing);

const sorted = (ids: string[]) => [...ids].sort();

describe('ExistingSources', () => {
  it('lists the sources the org still holds, in all three tables, and none deleted, foreign or unknown', async () => {
    const kept = (await storeFinding(store, orgA)).id;
    const deleted = (await storeFinding(store, orgA)).id;
    const foreign = (await storeFinding(store, orgB)).id;
    const { outputId } = await store.client.call(
      'storeResearchOutput',
      { planId: randomUUID(), mediaType: artifactV1.MediaType.MEDIA_TYPE_MARKDOWN, title: 'Report', content: 'Text.' },
      as(orgA),
    );
    const { extractionId } = await store.client.call(
      'storeExtractionResult',
      extraction({ source: { $case: 'sourceArtifactId', sourceArtifactId: kept } }),
      as(orgA),
    );
    await store.client.call('deleteArtifact', { artifactId: deleted }, as(orgA));

    const answer = await existing(orgA, {
      artifactIds: [kept, deleted, foreign, randomUUID(), 'not-a-uuid'],
      outputIds: [outputId, kept],
      extractionResultIds: [extractionId, outputId],
    });
    expect(answer).toEqual({ artifactIds: [kept], outputIds: [outputId], extractionResultIds: [extractionId] });

    // The other org sees only its own, and nothing of org A's.
    expect(
      await existing(orgB, {
        artifactIds: [kept, foreign],
        outputIds: [outputId],
        extractionResultIds: [extractionId],
      }),
    ).toEqual({ artifactIds: [foreign], outputIds: [], extractionResultIds: [] });
  });

  it('answers many ids in one call, and nothing for nothing', async () => {
    const ids = await Promise.all(Array.from({ length: 20 }, async () => (await storeFinding(store, orgA)).id));
    const asked = [...ids, ...Array.from({ length: 480 }, () => randomUUID())];
    const answer = await existing(orgA, { artifactIds: asked, outputIds: [], extractionResultIds: [] });
    expect(sorted(answer!.artifactIds)).toEqual(sorted(ids));
    expect(await existing(orgA, { artifactIds: [], outputIds: [], extractionResultIds: [] })).toEqual({
      artifactIds: [],
      outputIds: [],
      extractionResultIds: [],
    });
  });

  it('refuses more than 1000 ids', async () => {
    const artifactIds = Array.from({ length: 1001 }, () => randomUUID());
    expect(await failure(existing(orgA, { artifactIds, outputIds: [], extractionResultIds: [] }))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      status: status.INVALID_ARGUMENT,
    });
  });
});
