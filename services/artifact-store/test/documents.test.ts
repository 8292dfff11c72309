import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import type { ContentCreatedV1 } from '@quarry/events';
import { indexableSources } from '../src/index.js';
import { as, startTestStore, type TestStore } from './support.js';

// import_document over gRPC against real PostgreSQL and the real converter (@quarry/documents):
// the original kept byte for byte with its SHA-256, one document per org and digest, its units
// (here a Markdown document's sections, numbered like pages) on the event, in get_artifact and
// fetch page reads, and in a reindex; a file that cannot be converted leaves nothing behind.

let store: TestStore;
const orgA = randomUUID();
const orgB = randomUUID();

/** A Markdown document of `count` sections ("## Page N"), each with a sentence naming its number. */
function sections(count: number, marker = 'lighthouse'): Buffer {
  const parts = Array.from(
    { length: count },
    (_, i) => `## Page ${i + 1}\n\nOn page ${i + 1} the ${marker} keeper counted ${(i + 1) * 7} ships.`,
  );
  return Buffer.from(`# Harbour records\n\n${parts.join('\n\n')}\n`, 'utf8');
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function counts(): Promise<{ artifacts: number; documents: number; events: number }> {
  return {
    artifacts: await store.count('artifact.research_artifacts'),
    documents: await store.count('artifact.documents'),
    events: await store.count('events.outbox'),
  };
}

async function eventsFor(sourceId: string): Promise<ContentCreatedV1[]> {
  const { rows } = await sql<{ payload: ContentCreatedV1 }>`
    select payload from events.outbox where payload->>'sourceId' = ${sourceId} order by id`.execute(
    store.database.admin,
  );
  return rows.map((r) => r.payload);
}

beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => {
  await store?.close();
});

describe('ImportDocument', () => {
  const file = sections(40);
  let id: string;

  it('stores the original, its SHA-256, its text and its units, with one event carrying the units', async () => {
    const answer = await store.client.call(
      'importDocument',
      { data: file, fileName: 'harbour.md', mediaType: 'text/markdown' },
      as(orgA),
    );
    id = answer.id;
    expect(answer).toMatchObject({
      title: 'Harbour records',
      duplicate: false,
      document: {
        fileName: 'harbour.md',
        mediaType: 'text/markdown',
        format: 'markdown',
        sizeBytes: file.length,
        sha256: sha256(file),
        unitKind: 'section',
        unitCount: 41,
      },
    });
    const [event] = await eventsFor(id);
    expect(event).toMatchObject({ sourceTable: 'research_artifact', artifactType: 'source_list', orgId: orgA });
    expect(event!.units).toHaveLength(41);
    const page37 = event!.units!.find((u) => u.number === 38)!;
    expect(event!.text.slice(page37.start, page37.end)).toContain(
      'On page 37 the lighthouse keeper counted 259 ships.',
    );
  });

  it('answers the same bytes again with the same document: nothing converted or stored twice', async () => {
    const before = await counts();
    const again = await store.client.call('importDocument', { data: file, fileName: 'copy.md' }, as(orgA));
    expect(again).toMatchObject({ id, duplicate: true, document: { fileName: 'harbour.md', sha256: sha256(file) } });
    expect(await counts()).toEqual(before);
  });

  it('stores two concurrent imports of the same new bytes once', async () => {
    const fresh = sections(3, 'concurrent');
    const [a, b] = await Promise.all([
      store.client.call('importDocument', { data: fresh, fileName: 'a.md' }, as(orgA)),
      store.client.call('importDocument', { data: fresh, fileName: 'b.md' }, as(orgA)),
    ]);
    expect(a.id).toBe(b.id);
    expect([a.duplicate, b.duplicate].sort()).toEqual([false, true]);
  });

  it('downloads the original byte for byte, with its description', async () => {
    const read = await store.client.call('getArtifact', { id, original: true }, as(orgA));
    expect(Buffer.from(read.original!.blob).equals(file)).toBe(true);
    expect(read.original!.mimeType).toBe('text/markdown');
    expect(read.document).toMatchObject({ sha256: sha256(file), unitCount: 41 });
    const plain = await store.client.call('getArtifact', { id }, as(orgA));
    expect(plain.original).toBeUndefined();
  });

  it('reads a range of pages with their spans, and cites the first of them', async () => {
    const read = await store.client.call('getArtifact', { id, pages: '38-39' }, as(orgA));
    expect(read.contentText).toContain('On page 37 the lighthouse keeper');
    expect(read.contentText).toContain('On page 38 the lighthouse keeper');
    expect(read.contentText).not.toContain('page 36 ');
    expect(read.units.map((u) => u.number)).toEqual([38, 39]);
    expect(read.contentText!.slice(read.units[1]!.start, read.units[1]!.end)).toMatch(/^## Page 38/);
    expect(read.url).toBe(`quarry://artifacts/${id}#page=38`);
  });

  it('refuses pages the document does not have, and pages of an artifact that is no document', async () => {
    await expect(store.client.call('getArtifact', { id, pages: '42-50' }, as(orgA))).rejects.toMatchObject({
      code: 'PAGES_OUT_OF_RANGE',
    });
    await expect(store.client.call('getArtifact', { id, pages: '9-3' }, as(orgA))).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    const other = await store.client.call(
      'storeResearch',
      { artifactType: 1, title: 'A note', content: { note: 'not a document' }, tags: [] },
      as(orgA),
    );
    await expect(store.client.call('getArtifact', { id: other.id, pages: '1' }, as(orgA))).rejects.toMatchObject({
      code: 'DOCUMENT_NOT_FOUND',
    });
  });

  it('fetches the page a search url points to', async () => {
    const read = await store.client.call('fetch', { id: `quarry://artifacts/${id}#page=38` }, as(orgA));
    expect(read.text).toMatch(/^## Page 37\n\nOn page 37 the lighthouse keeper counted 259 ships\.$/);
    expect(read.url).toBe(`quarry://artifacts/${id}#page=38`);
    expect(read.metadata).toMatchObject({ sha256: sha256(file), pages: '38', page_count: '41' });
    const whole = await store.client.call('fetch', { id }, as(orgA));
    expect(whole.text).toContain('On page 1 the');
    expect(whole.text).toContain('On page 40 the');
  });

  it('keeps the units when the document is retagged, and when the index is rebuilt from the tables', async () => {
    await store.client.call('updateArtifactTags', { id, add: ['harbour'], remove: [] }, as(orgA));
    const events = await eventsFor(id);
    expect(events).toHaveLength(2);
    expect(events[1]!.units).toEqual(events[0]!.units);
    const rebuilt: ContentCreatedV1[] = [];
    for await (const page of indexableSources(store.db, orgA)) rebuilt.push(...page.events);
    expect(rebuilt.find((e) => e.sourceId === id)!.units).toEqual(events[0]!.units);
  });

  it('is org-scoped: another org neither reads it nor shares it, and the same bytes there are its own document', async () => {
    await expect(store.client.call('getArtifact', { id, original: true }, as(orgB))).rejects.toMatchObject({
      code: 'ARTIFACT_NOT_FOUND',
    });
    await expect(store.client.call('fetch', { id: `quarry://artifacts/${id}#page=2` }, as(orgB))).rejects.toMatchObject(
      { code: 'ITEM_NOT_FOUND' },
    );
    const theirs = await store.client.call('importDocument', { data: file, fileName: 'harbour.md' }, as(orgB));
    expect(theirs.duplicate).toBe(false);
    expect(theirs.id).not.toBe(id);
    const { rows } = await sql<{
      org_id: string;
    }>`select org_id from artifact.documents where artifact_id = ${theirs.id}`.execute(store.database.admin);
    expect(rows).toEqual([{ org_id: orgB }]);
  });

  it('goes with its artifact: deleted, the same bytes import anew', async () => {
    const fresh = sections(2, 'deleted');
    const first = await store.client.call('importDocument', { data: fresh, fileName: 'gone.md' }, as(orgA));
    await store.client.call('deleteArtifact', { artifactId: first.id }, as(orgA));
    const { rows } = await sql`select 1 from artifact.documents where artifact_id = ${first.id}`.execute(
      store.database.admin,
    );
    expect(rows).toHaveLength(0);
    const again = await store.client.call('importDocument', { data: fresh, fileName: 'gone.md' }, as(orgA));
    expect(again.duplicate).toBe(false);
    expect(again.id).not.toBe(first.id);
  });
});

describe('ImportDocument refusals: a named error, nothing stored, the service still serving', () => {
  it.each([
    [
      'binary that is no document',
      Buffer.from([0, 1, 2, 3, 255, 254, 0, 0, 7, 9, 0, 0]),
      'DOCUMENT_UNSUPPORTED_FORMAT',
    ],
    ['an empty file', Buffer.alloc(0), 'INVALID_ARGUMENT'],
  ])('%s', async (_what, data, code) => {
    const before = await counts();
    await expect(store.client.call('importDocument', { data, fileName: 'bad.bin' }, as(orgA))).rejects.toMatchObject({
      code,
    });
    expect(await counts()).toEqual(before);
    expect((await store.client.call('listTags', {}, as(orgA))).tags).toBeDefined();
  });

  it('refuses a step without its plan before converting anything', async () => {
    await expect(
      store.client.call('importDocument', { data: sections(1), fileName: 'x.md', stepId: randomUUID() }, as(orgA)),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
