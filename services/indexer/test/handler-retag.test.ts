import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { createLocalEmbedder, prepareSource } from '@quarry/search-index';
import { database, report, setup, useHandlerDatabase } from './handler-support.js';
import { appendEvent, dumpTable, prose } from './helpers.js';

// A new version of a source that changes only its metadata (update_artifact_tags writes one):
// every chunk is rewritten in both indexes with the new tags, but no chunk text is embedded
// again — the vector index's own vectors are written back. Real PostgreSQL and LanceDB.

const query = createLocalEmbedder();
useHandlerDatabase();

describe('a version that changes only the tags', () => {
  it('rewrites every chunk with the new tags and embeds nothing; a text change embeds only the changed chunks', async () => {
    const { backends, handle } = await setup();
    const orgId = randomUUID();
    const sourceId = randomUUID();
    const text = prose('permafrost thaw and methane release', 80);
    const version = (tags: string[], at: string, body = text) =>
      appendEvent(database, {
        orgId,
        sourceTable: 'research_artifact',
        sourceId,
        title: 'Permafrost',
        text: body,
        tags,
        createdAt: '2026-03-01T00:00:00.000Z',
        occurredAt: new Date(at),
      });
    const v1 = await version(['arctic'], '2026-03-01T00:00:00Z');
    const v2 = await version(['methane'], '2026-03-01T00:00:05Z');
    const n = prepareSource({ orgId, sourceTable: 'research_artifact', sourceId, title: 'Permafrost' }, text).chunks
      .length;
    expect(n).toBeGreaterThan(2);

    await handle([v1]);
    const before = await dumpTable(backends.dir, 'chunks_vec', [orgId]);
    const texts = backends.embedder.texts;
    expect(await handle([v2])).toEqual(report({ events: 1, indexed: 1, chunksWritten: n, chunksEmbedded: 0 }));
    expect(backends.embedder.texts - texts).toBe(0);
    const after = await dumpTable(backends.dir, 'chunks_vec', [orgId]);
    // Same ids and vectors, new content hashes (the tags are part of them).
    expect(after.map((r) => [r.id, r.vector])).toEqual(before.map((r) => [r.id, r.vector]));
    expect(after.map((r) => r.content_hash)).not.toEqual(before.map((r) => r.content_hash));

    // Both legs filter by the new tags only; the documents keep when the source was stored.
    const scope = (tags: string[]) => ({ orgId, filters: { tags }, limit: 50 });
    const vector = query.embedOne('permafrost methane');
    expect((await backends.vectors.search(vector, scope(['methane']))).length).toBe(n);
    expect(await backends.vectors.search(vector, scope(['arctic']))).toEqual([]);
    expect(await backends.bm25.search('permafrost', scope(['arctic']))).toEqual([]);
    const hit = (await backends.bm25.search('permafrost', scope(['methane'])))[0]!;
    expect(hit).toMatchObject({ sourceId, tags: ['methane'], createdAt: '2026-03-01T00:00:00.000Z' });

    // A later version that also changes the text: only the chunks whose text changed are embedded.
    const v3 = await version(['methane'], '2026-03-01T00:00:09Z', `${text} A closing remark on thermokarst lakes.`);
    const r3 = await handle([v3]);
    expect(r3.chunksEmbedded).toBeGreaterThan(0);
    expect(r3.chunksEmbedded).toBeLessThan(n);
  });
});
