import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1 } from '@quarry/contracts';
import { status } from '@quarry/grpc';
import { extraction, failure, notFound, SOURCE, storeFinding } from './extraction-support.js';
import { as, startTestStore, type TestStore } from './support.js';

// get_artifact, get_research_output, get_extraction and fetch at the artifact store's gRPC
// boundary, over real PostgreSQL: what was stored comes back, long text in pages within the
// byte budget, and another org's ids behave exactly like missing ones.

const { MediaType } = artifactV1;
const BUDGET = 64 * 1024;
let store: TestStore;
const orgA = randomUUID();
const orgB = randomUUID();
const planId = randomUUID();
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  store = await startTestStore({ readBudgetBytes: BUDGET });
});
afterAll(async () => {
  await store?.close();
});

/** Follow the cursors of a paged read to the end; returns every page. */
async function allPages<T extends { page?: artifactV1.TextPage }>(first: T, next: (cursor: string) => Promise<T>) {
  const pages = [first];
  while (pages.at(-1)!.page?.nextCursor) pages.push(await next(pages.at(-1)!.page!.nextCursor!));
  return pages;
}

describe('get_artifact', () => {
  it('returns everything stored: content, contentText, tags, plan and step, confidence, createdAt', async () => {
    const stepId = randomUUID();
    const { id } = await storeFinding(store, orgA, {
      content: { claim: 'Lithium fell 20%.', sources: ['a', 'b'] },
      contentText: 'Lithium carbonate prices fell 20% in 2024.',
      confidence: 0.7,
      planId,
      stepId,
      tags: ['lithium', 'prices'],
    });
    const got = await store.client.call('getArtifact', { id }, as(orgA));
    expect(got).toMatchObject({
      id,
      artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_FINDING,
      title: 'Lithium prices',
      content: { claim: 'Lithium fell 20%.', sources: ['a', 'b'] },
      contentOmitted: false,
      contentText: 'Lithium carbonate prices fell 20% in 2024.',
      tags: ['lithium', 'prices'],
      confidence: 0.7,
      planId,
      stepId,
      source: artifactV1.ArtifactSource.ARTIFACT_SOURCE_CLIENT,
      url: `quarry://artifacts/${id}`,
    });
    expect(got.page).toEqual({ totalBytes: 42, offset: 0, returnedBytes: 42 });
    expect(got.createdAt!.getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('pages a multi-megabyte artifact within the budget; the pages joined are the text, byte for byte', async () => {
    // 1 MiB of contentText (multi-byte characters, so pages must not split one) and a content
    // object over the budget: about 2 MB stored in all.
    const contentText = 'Ünïcødé ✓ lithium '.repeat(50_000).slice(0, 500_000);
    const big = { rows: Array.from({ length: 20_000 }, (_, i) => `row ${i} of the price table`) };
    const { id } = await storeFinding(store, orgA, { content: big, contentText });
    const first = await store.client.call('getArtifact', { id }, as(orgA));
    expect(first.content).toBeUndefined();
    expect(first.contentOmitted).toBe(true);
    expect(first.contentBytes).toBe(Buffer.byteLength(JSON.stringify(big)));
    const pages = await allPages(first, (cursor) => store.client.call('getArtifact', { id, cursor }, as(orgA)));
    expect(pages.length).toBeGreaterThan(Buffer.byteLength(contentText) / BUDGET);
    for (const p of pages) expect(Buffer.byteLength(p.contentText!)).toBeLessThanOrEqual(BUDGET);
    expect(pages.slice(1).every((p) => p.content === undefined && !p.contentOmitted)).toBe(true);
    expect(sha256(pages.map((p) => p.contentText).join(''))).toBe(sha256(contentText));

    // A larger maxBytes brings the content object, and its size counts against the budget.
    const whole = await store.client.call('getArtifact', { id, maxBytes: 1024 * 1024 }, as(orgA));
    expect(whole.content).toEqual(big);
    expect(Buffer.byteLength(whole.contentText!) + whole.contentBytes).toBeLessThanOrEqual(1024 * 1024);
  });

  it('refuses a forged, edited or foreign cursor', async () => {
    const { id } = await storeFinding(store, orgA, { contentText: 'x'.repeat(BUDGET * 2) });
    const { id: other } = await storeFinding(store, orgA, { contentText: 'y'.repeat(BUDGET * 2) });
    const cursor = (await store.client.call('getArtifact', { id }, as(orgA))).page!.nextCursor!;
    const [body, mac] = cursor.split('.');
    const edited = Buffer.from(JSON.stringify({ s: `get_artifact:${id}`, p: 5 })).toString('base64url');
    for (const bad of [`${edited}.${mac}`, `${body}.${mac}x`, 'garbage', `${body}`]) {
      expect((await failure(store.client.call('getArtifact', { id, cursor: bad }, as(orgA)))).code).toBe(
        'INVALID_CURSOR',
      );
    }
    // Minted for another artifact, or for fetch: refused too.
    expect((await failure(store.client.call('getArtifact', { id: other, cursor }, as(orgA)))).code).toBe(
      'INVALID_CURSOR',
    );
    const fetchCursor = (await store.client.call('fetch', { id }, as(orgA))).metadata.next_cursor!;
    expect((await failure(store.client.call('getArtifact', { id, cursor: fetchCursor }, as(orgA)))).code).toBe(
      'INVALID_CURSOR',
    );
  });

  it("treats another org's, a missing and a malformed id alike", async () => {
    const { id } = await storeFinding(store, orgA);
    for (const probe of [id, randomUUID(), 'not-a-uuid'])
      expect(await failure(store.client.call('getArtifact', { id: probe }, as(orgB)))).toEqual(notFound(probe));
  });
});

describe('get_research_output', () => {
  const store_ = (mediaType: artifactV1.MediaType, content: string, orgId = orgA) =>
    store.client.call(
      'storeResearchOutput',
      { planId, mediaType, title: 'Report', content, contentSummary: 'Prices fell.' },
      as(orgId),
    );

  it.each([
    ['word', MediaType.MEDIA_TYPE_WORD, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    ['excel', MediaType.MEDIA_TYPE_EXCEL, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    [
      'powerpoint',
      MediaType.MEDIA_TYPE_POWERPOINT,
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    ],
  ])('returns a %s document byte for byte, with its MIME type and SHA-256', async (_name, mediaType, mimeType) => {
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 256));
    const { outputId } = await store_(mediaType, bytes.toString('base64'));
    const got = await store.client.call('getResearchOutput', { outputId }, as(orgA));
    expect(got).toMatchObject({
      outputId,
      planId,
      mediaType,
      mimeType,
      sizeBytes: bytes.length,
      sha256: sha256(bytes),
    });
    expect(got.content).toBeUndefined();
    expect(got.document!.uri).toBe(`quarry://outputs/${outputId}`);
    expect(got.document!.mimeType).toBe(mimeType);
    expect(Buffer.compare(Buffer.from(got.document!.blob), bytes)).toBe(0);
  });

  it('returns text forms as text, paged within the budget', async () => {
    const markdown = `# Report\n\n${'Prices fell — sharply. '.repeat(10_000)}`;
    const { outputId } = await store_(MediaType.MEDIA_TYPE_MARKDOWN, markdown);
    const first = await store.client.call('getResearchOutput', { outputId }, as(orgA));
    expect(first).toMatchObject({ mimeType: 'text/markdown; charset=utf-8', sha256: sha256(markdown) });
    expect(first.document).toBeUndefined();
    const pages = await allPages(first, (cursor) =>
      store.client.call('getResearchOutput', { outputId, cursor }, as(orgA)),
    );
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.map((p) => p.content).join('')).toBe(markdown);
  });

  it("treats another org's, a missing and a malformed id alike", async () => {
    const { outputId } = await store_(MediaType.MEDIA_TYPE_CONVERSATION, 'hello');
    for (const probe of [outputId, randomUUID(), 'nope'])
      expect(await failure(store.client.call('getResearchOutput', { outputId: probe }, as(orgB)))).toEqual({
        code: 'OUTPUT_NOT_FOUND',
        status: status.NOT_FOUND,
        message: `No research output ${probe} in your organization.`,
        details: undefined,
      });
  });
});

describe('get_extraction', () => {
  it('returns the stored result: data, confidences, fields, schema, source, plan', async () => {
    const { extractionId } = await store.client.call(
      'storeExtractionResult',
      extraction({ sourceUrl: 'https://arxiv.org/abs/1706.03762', sourcePage: 1 }),
      as(orgA),
    );
    const got = await store.client.call('getExtraction', { id: extractionId }, as(orgA));
    const stored = extraction();
    expect(got).toMatchObject({
      id: extractionId,
      data: stored.data,
      fieldConfidences: stored.fieldConfidences,
      fields: stored.fields,
      overallConfidence: 0.95,
      provider: 'heuristic',
      extractionSchema: stored.extractionSchema,
      schemaHash: stored.schemaHash,
      schemaVersion: 2,
      sourceText: SOURCE,
      sourceUrl: 'https://arxiv.org/abs/1706.03762',
      sourcePage: 1,
      url: `quarry://extractions/${extractionId}`,
    });
    for (const probe of [extractionId, randomUUID(), 'x'])
      expect((await failure(store.client.call('getExtraction', { id: probe }, as(orgB)))).code).toBe(
        'EXTRACTION_NOT_FOUND',
      );
  });
});

describe('fetch', () => {
  it('returns {id, title, text, url, metadata} for an artifact, an output and an extraction, by id or url', async () => {
    const { id } = await storeFinding(store, orgA, { planId, tags: ['t1', 't2'], contentText: 'Cobalt rose.' });
    const a = await store.client.call('fetch', { id }, as(orgA));
    expect(a).toMatchObject({ id, title: 'Lithium prices', text: 'Cobalt rose.', url: `quarry://artifacts/${id}` });
    expect(a.metadata).toMatchObject({ source_table: 'research_artifact', plan_id: planId, tags: 't1,t2' });
    expect(await store.client.call('fetch', { id: a.url }, as(orgA))).toEqual(a);

    const bytes = Buffer.from('PK\u0003\u0004 not really a docx');
    const { outputId } = await store.client.call(
      'storeResearchOutput',
      {
        planId,
        mediaType: MediaType.MEDIA_TYPE_WORD,
        title: 'Deck',
        content: bytes.toString('base64'),
        contentSummary: 'Summary of the report.',
      },
      as(orgA),
    );
    const o = await store.client.call('fetch', { id: outputId }, as(orgA));
    expect(o.text).toContain('Summary of the report.');
    expect(o.metadata).toMatchObject({ source_table: 'research_output', media_type: 'word' });

    const { extractionId } = await store.client.call('storeExtractionResult', extraction(), as(orgA));
    const e = await store.client.call('fetch', { id: `quarry://extractions/${extractionId}` }, as(orgA));
    expect(e.text).toContain('title: Attention Is All You Need');
    expect(e.title).toMatch(/^Extraction \(Paper\)/);
    // A url names its kind: an artifact id under outputs/ is not found.
    expect((await failure(store.client.call('fetch', { id: `quarry://outputs/${id}` }, as(orgA)))).code).toBe(
      'ITEM_NOT_FOUND',
    );
  });

  it('reads a permalink (the gateway gives one with a public URL) by its path, whatever its host', async () => {
    const { id } = await storeFinding(store, orgA, { contentText: 'Nickel fell.' });
    const byId = await store.client.call('fetch', { id }, as(orgA));
    for (const permalink of [
      `https://quarry.example/library/artifact/${id}`,
      `http://127.0.0.1:8080/q/library/artifact/${id}`,
    ])
      expect(await store.client.call('fetch', { id: permalink }, as(orgA))).toEqual(byId);
    for (const probe of [
      `https://quarry.example/library/output/${id}`,
      `https://quarry.example/library/artifact/${id}?a=b`,
    ])
      expect((await failure(store.client.call('fetch', { id: probe }, as(orgA)))).code).toBe('ITEM_NOT_FOUND');
    expect(
      (await failure(store.client.call('fetch', { id: `https://quarry.example/library/artifact/${id}` }, as(orgB))))
        .code,
    ).toBe('ITEM_NOT_FOUND');
  });

  it('pages long text through metadata.next_cursor', async () => {
    const text = 'lithium '.repeat(30_000);
    const { id } = await storeFinding(store, orgA, { contentText: text });
    let page = await store.client.call('fetch', { id }, as(orgA));
    const parts = [page.text];
    while (page.metadata.next_cursor) {
      page = await store.client.call('fetch', { id, cursor: page.metadata.next_cursor }, as(orgA));
      expect(Buffer.byteLength(page.text)).toBeLessThanOrEqual(BUDGET);
      parts.push(page.text);
    }
    expect(parts.length).toBe(Math.ceil(text.length / BUDGET));
    expect(parts.join('')).toBe(text);
  });

  it("treats another org's, a missing and a malformed id alike", async () => {
    const { id } = await storeFinding(store, orgA);
    for (const probe of [id, `quarry://artifacts/${id}`, randomUUID(), 'quarry://nothing/x'])
      expect(await failure(store.client.call('fetch', { id: probe }, as(orgB)))).toEqual({
        code: 'ITEM_NOT_FOUND',
        status: status.NOT_FOUND,
        message: `No artifact, research output or extraction result ${probe} in your organization.`,
        details: undefined,
      });
  });
});
