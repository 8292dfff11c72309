import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1 } from '@quarry/contracts';
import { sql } from '@quarry/db';
import { FIGURE_CAPTION, FIGURE_SIZE, figurePng, illustratedPdf, pageSentence, TABLE_CAPTION } from '@quarry/testing';
import { as, startTestStore, type TestStore } from './support.js';

// A document's figures and tables through ImportDocument and GetArtifact, on real PostgreSQL and
// the real converter: the known figure of page 12 back as its PNG with caption and page, the
// table of page 20 as markdown, another org's document like a missing one.

let store: TestStore;
const org = randomUUID();
const other = randomUUID();
let id: string;

const TABLE_MARKDOWN = [
  '| Harbour | Crates | Tin (t) |',
  '| --- | --- | --- |',
  '| North | 120 | 3.5 |',
  '| South | 95 | 2.25 |',
  '| East | 40 | 1.0 |',
].join('\n');

beforeAll(async () => {
  store = await startTestStore();
  id = (await store.client.call('importDocument', { data: await illustratedPdf(), fileName: 'report.pdf' }, as(org)))
    .id;
  // Converting 50 pages in a fresh worker takes seconds on a loaded machine.
}, 120_000);
afterAll(async () => {
  await store?.close();
});

describe('a document’s figures and tables', () => {
  it('gives the figure of page 12 as its image, with caption, page and box, and the text of its page', async () => {
    const read = await store.client.call('getArtifact', { id, figure: 1 }, as(org));
    expect(read.figures).toEqual([
      expect.objectContaining({
        number: 1,
        page: 12,
        index: 1,
        caption: FIGURE_CAPTION,
        mimeType: 'image/png',
        ...FIGURE_SIZE,
        box: [56, 520, 344, 712],
      }),
    ]);
    expect(read.image!.mimeType).toBe('image/png');
    expect(Buffer.from(read.image!.data).equals(Buffer.from(figurePng()))).toBe(true);
    expect(read.figures[0]!.sizeBytes).toBe(read.image!.data.length);
    expect(read.contentText).toContain(pageSentence(12));
    expect(read.units.map((u) => u.number)).toEqual([12]);
  });

  it('gives the table of page 20 as markdown with its caption when that page is read, and lists both without pages', async () => {
    const page = await store.client.call('getArtifact', { id, pages: '19-21' }, as(org));
    expect(page.tables).toEqual([
      { number: 1, page: 20, index: 1, caption: TABLE_CAPTION, rows: 4, columns: 3, markdown: TABLE_MARKDOWN },
    ]);
    expect(page.figures).toEqual([]);
    expect(page.image).toBeUndefined();
    const whole = await store.client.call('getArtifact', { id }, as(org));
    expect(whole.figures.map((f) => [f.number, f.page, f.caption])).toEqual([[1, 12, FIGURE_CAPTION]]);
    expect(whole.tables).toEqual([{ number: 1, page: 20, index: 1, caption: TABLE_CAPTION, rows: 4, columns: 3 }]);
  });

  it('refuses a figure the document does not have, and a figure of an artifact that is no document', async () => {
    await expect(store.client.call('getArtifact', { id, figure: 2 }, as(org))).rejects.toMatchObject({
      code: 'FIGURE_NOT_FOUND',
      message: expect.stringContaining('has no figure 2 (it has 1)'),
    });
    const note = await store.client.call(
      'storeResearch',
      {
        artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_FINDING,
        title: 'A note',
        content: {},
        contentText: 'A note.',
        tags: [],
      },
      as(org),
    );
    await expect(store.client.call('getArtifact', { id: note.id, figure: 1 }, as(org))).rejects.toMatchObject({
      code: 'DOCUMENT_NOT_FOUND',
    });
  });

  it('is org-scoped: another org’s document answers a figure or its tables exactly as a missing one', async () => {
    const missing = randomUUID();
    for (const ask of [{ figure: 1 }, { pages: '20' }]) {
      const theirs = store.client.call('getArtifact', { id, ...ask }, as(other));
      const none = store.client.call('getArtifact', { id: missing, ...ask }, as(other));
      const [a, b] = await Promise.allSettled([theirs, none]);
      expect(a.status).toBe('rejected');
      expect(b.status).toBe('rejected');
      const reason = (r: PromiseSettledResult<unknown>) =>
        (r as PromiseRejectedResult).reason as Error & { code: string };
      expect(reason(a).code).toBe('ARTIFACT_NOT_FOUND');
      expect(reason(a).message.replace(id, 'ID')).toBe(reason(b).message.replace(missing, 'ID'));
    }
    const { rows } = await sql<{ org_id: string }>`
      select distinct org_id from artifact.document_figures where artifact_id = ${id}`.execute(store.database.admin);
    expect(rows).toEqual([{ org_id: org }]);
  });

  it('go with their document when it is deleted', async () => {
    const owner = randomUUID();
    const gone = await store.client.call(
      'importDocument',
      { data: await illustratedPdf(), fileName: 'report.pdf' },
      as(owner),
    );
    const figures = sql<{ n: number }>`
      select count(*)::int as n from artifact.document_figures where artifact_id = ${gone.id}`;
    expect((await figures.execute(store.database.admin)).rows).toEqual([{ n: 1 }]);
    await store.client.call('deleteArtifact', { artifactId: gone.id }, as(owner));
    expect((await figures.execute(store.database.admin)).rows).toEqual([{ n: 0 }]);
  });
});
