import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { corruptPdf, pagedPdf, pageSentence, passwordProtectedPdf } from '@quarry/testing';
import { as, startTestStore, type TestStore } from './support.js';

// A generated 50-page PDF through import_document and the real converter: stored with its pages,
// page 37 read alone, the original back byte for byte; an encrypted and a corrupt PDF refused by
// name with nothing stored, the service serving on.

let store: TestStore;
const org = randomUUID();

async function stored(): Promise<number[]> {
  return [
    await store.count('artifact.research_artifacts'),
    await store.count('artifact.documents'),
    await store.count('events.outbox'),
  ];
}

beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => {
  await store?.close();
});

describe('a PDF through ImportDocument', () => {
  it('is stored page by page: page 37 reads alone, and the original comes back byte for byte', async () => {
    const pdf = await pagedPdf(50);
    const answer = await store.client.call('importDocument', { data: pdf, fileName: 'report.pdf' }, as(org));
    expect(answer).toMatchObject({
      title: 'A report of 50 pages',
      duplicate: false,
      document: {
        format: 'pdf',
        mediaType: 'application/pdf',
        unitKind: 'page',
        unitCount: 50,
        sizeBytes: pdf.length,
        sha256: createHash('sha256').update(pdf).digest('hex'),
        author: 'Quarry Tests',
      },
    });
    const page = await store.client.call('getArtifact', { id: answer.id, pages: '37' }, as(org));
    expect(page.contentText).toBe(`Section 37\n\n${pageSentence(37)}`);
    expect(page.url).toBe(`quarry://artifacts/${answer.id}#page=37`);
    const original = await store.client.call('getArtifact', { id: answer.id, original: true }, as(org));
    expect(Buffer.from(original.original!.blob).equals(pdf)).toBe(true);
    expect(original.original!.mimeType).toBe('application/pdf');
  });

  it.each([
    ['a password-protected PDF', passwordProtectedPdf, 'DOCUMENT_ENCRYPTED'],
    ['a corrupt PDF', async () => corruptPdf(), 'DOCUMENT_CORRUPT'],
  ])('refuses %s by name and stores nothing', async (_what, make, code) => {
    const before = await stored();
    await expect(
      store.client.call('importDocument', { data: await make(), fileName: 'bad.pdf' }, as(org)),
    ).rejects.toMatchObject({ code, message: expect.stringContaining('bad.pdf') });
    expect(await stored()).toEqual(before);
    const next = await store.client.call(
      'importDocument',
      // A document of its own per case: the same bytes in the same org would be the same document.
      { data: await pagedPdf(1, `after ${code}`), fileName: 'ok.pdf' },
      as(org),
    );
    expect(next.duplicate).toBe(false);
  });
});
