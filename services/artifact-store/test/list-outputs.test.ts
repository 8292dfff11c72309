import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1 } from '@quarry/contracts';
import { failure } from './extraction-support.js';
import { as, startTestStore, type TestStore } from './support.js';

// list_research_outputs at the artifact store's gRPC boundary, over real PostgreSQL: most recent
// first and paginated without content, filtered by plan, and each org sees only its own.

const { MediaType } = artifactV1;
let store: TestStore;

beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => {
  await store?.close();
});

const storeOutput = (orgId: string, planId: string, title: string, mediaType = MediaType.MEDIA_TYPE_MARKDOWN) =>
  store.client.call(
    'storeResearchOutput',
    { planId, mediaType, title, content: mediaType === MediaType.MEDIA_TYPE_WORD ? 'UEsDBA==' : `# ${title}` },
    as(orgId),
  );

describe('list_research_outputs', () => {
  it('lists most recent first, a page at a time, without skipping or repeating', async () => {
    const org = randomUUID();
    const planId = randomUUID();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await storeOutput(org, planId, `Report ${i}`)).outputId);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.client.call('listResearchOutputs', { limit: 2, cursor }, as(org));
      expect(page.outputs.length).toBeLessThanOrEqual(2);
      seen.push(...page.outputs.map((o) => o.outputId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    const first = (await store.client.call('listResearchOutputs', { limit: 1 }, as(org))).outputs[0]!;
    expect(first).toMatchObject({
      outputId: ids[4],
      planId,
      title: 'Report 4',
      mediaType: MediaType.MEDIA_TYPE_MARKDOWN,
      mimeType: 'text/markdown; charset=utf-8',
      sizeBytes: Buffer.byteLength('# Report 4'),
      url: `quarry://outputs/${ids[4]}`,
    });
  });

  it('filters by plan; a malformed or foreign plan lists nothing; another org sees none', async () => {
    const org = randomUUID();
    const [planA, planB] = [randomUUID(), randomUUID()];
    const a = await storeOutput(org, planA, 'A', MediaType.MEDIA_TYPE_WORD);
    const b = await storeOutput(org, planB, 'B');
    const list = async (orgId: string, planId?: string) =>
      (await store.client.call('listResearchOutputs', { planId }, as(orgId))).outputs.map((o) => o.outputId);
    expect(await list(org, planA)).toEqual([a.outputId]);
    expect(await list(org)).toEqual([b.outputId, a.outputId]);
    expect(await list(org, 'not-a-uuid')).toEqual([]);
    expect(await list(randomUUID(), planA)).toEqual([]);
    expect(await list(randomUUID())).toEqual([]);
  });

  it('refuses a cursor made for another plan filter', async () => {
    const org = randomUUID();
    const planId = randomUUID();
    for (let i = 0; i < 2; i++) await storeOutput(org, planId, `R${i}`);
    const { nextCursor } = await store.client.call('listResearchOutputs', { limit: 1 }, as(org));
    expect(nextCursor).toBeDefined();
    expect(
      (await failure(store.client.call('listResearchOutputs', { planId, cursor: nextCursor }, as(org)))).code,
    ).toBe('INVALID_CURSOR');
  });
});
