import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { sql, withTenant } from '@quarry/db';
import type { DeliveredEvent } from '@quarry/events';
import { createLocalEmbedder, prepareSource, sourceKeyString, type SourceMeta } from '@quarry/search-index';
import { createIndexHandler } from '../src/index.js';
import { artifact, database, logger, report, setup, sha256, useHandlerDatabase } from './handler-support.js';
import { appendEvent, createdOf, dumpIndexedSources, dumpTable, prose } from './helpers.js';

// The batch handler against real PostgreSQL (outbox rows, indexer.indexed_sources under RLS) and
// real LanceDB indexes with the local embedder.
// Redelivery, replay and tenancy are in handler-replay.test.ts and handler-tenancy.test.ts.

const query = createLocalEmbedder();
useHandlerDatabase();

const metaOf = (d: DeliveredEvent): SourceMeta => ({
  orgId: d.event.orgId,
  sourceTable: d.event.sourceTable,
  sourceId: d.event.sourceId,
  title: createdOf(d).title,
});
const chunksOf = (d: DeliveredEvent) => prepareSource(metaOf(d), createdOf(d).text).chunks;

describe('indexing content events', () => {
  it('puts a source in both indexes, searchable only in its own org, and records its version', async () => {
    const { backends, handle } = await setup();
    const [orgA, orgB] = [randomUUID(), randomUUID()];
    const sourceId = randomUUID(); // the same source id in both orgs: only the org keeps them apart
    const a = await appendEvent(database, {
      orgId: orgA,
      sourceTable: 'research_artifact',
      sourceId,
      title: 'Glacier survey',
      text: prose('glacier moraine deposits', 60),
      artifactType: 'finding',
      tags: ['ice'],
    });
    const b = await artifact(orgB, sourceId, 'Other org', 'A glacier note that belongs to org B only.');
    const aChunks = prepareSource({ ...metaOf(a), artifactType: 'finding', tags: ['ice'] }, createdOf(a).text).chunks;
    expect(aChunks.length).toBeGreaterThan(1);

    const calls = backends.embedder.calls;
    expect(await handle([a, b])).toEqual(
      report({ events: 2, indexed: 2, chunksWritten: aChunks.length + 1, chunksEmbedded: aChunks.length + 1 }),
    );
    expect(backends.embedder.calls - calls).toBe(1); // one embed call for the whole batch

    // Both indexes hold exactly the prepared chunks.
    const key = { orgId: orgA, sourceTable: 'research_artifact', sourceId };
    const expected = new Map(aChunks.map((c) => [c.chunkNo, c.contentHash]));
    expect(await backends.bm25.hashes(key)).toEqual(expected);
    expect(await backends.vectors.hashes(key)).toEqual(expected);

    // Found in its org, by both legs; never in the other org.
    const inA = await backends.bm25.search('moraine', { orgId: orgA, limit: 50 });
    expect(new Set(inA.map((h) => h.sourceId))).toEqual(new Set([sourceId]));
    expect(await backends.bm25.search('moraine', { orgId: orgB, limit: 50 })).toEqual([]);
    const glacierInB = await backends.bm25.search('glacier', { orgId: orgB, limit: 50 });
    expect(glacierInB.map((h) => h.text)).toEqual(['A glacier note that belongs to org B only.']);
    const semanticB = await backends.vectors.search(query.embedOne('glacier moraine deposits'), {
      orgId: orgB,
      limit: 50,
    });
    expect(semanticB.map((h) => [h.sourceId, h.title])).toEqual([[sourceId, 'Other org']]);
    const semanticA = await backends.vectors.search(query.embedOne('glacier moraine deposits'), {
      orgId: orgA,
      limit: 50,
    });
    expect(semanticA).toHaveLength(aChunks.length);

    // The recorded version, visible to its own tenant.
    const rows = await withTenant(database.app, { orgId: orgA }, (trx) =>
      sql`select * from indexer.indexed_sources`.execute(trx),
    );
    expect(rows.rows).toEqual([
      expect.objectContaining({
        org_id: orgA,
        source_table: 'research_artifact',
        source_id: sourceId,
        event_id: a.event.eventId,
        occurred_at: new Date(a.event.occurredAt),
        text_sha256: sha256(createdOf(a).text),
        chunk_count: aChunks.length,
        embedder: 'local-ngram-v1/768',
      }),
    ]);
  });

  it('embeds only the chunks whose content changed', async () => {
    const { backends, handle } = await setup();
    const org = randomUUID();
    const sourceId = randomUUID();
    const text = prose('fjord sediment cores', 120);
    const v1 = await artifact(org, sourceId, 'Cores', text, new Date('2026-01-01T00:00:00Z'));
    const v2 = await artifact(
      org,
      sourceId,
      'Cores',
      `${text} One closing remark about turbidites.`,
      new Date('2026-01-01T00:00:01Z'),
    );
    const n = chunksOf(v1).length;
    expect(n).toBeGreaterThan(3);
    await handle([v1]);
    const changed = chunksOf(v2).filter((c, i) => c.contentHash !== chunksOf(v1)[i]?.contentHash).length;
    expect(changed).toBeGreaterThan(0);
    expect(changed).toBeLessThan(n);

    const texts = backends.embedder.texts;
    expect(await handle([v2])).toEqual(
      report({ events: 1, indexed: 1, chunksWritten: changed, chunksEmbedded: changed }),
    );
    expect(backends.embedder.texts - texts).toBe(changed);
    expect(await backends.vectors.hashes(metaOf(v2))).toEqual(
      new Map(chunksOf(v2).map((c) => [c.chunkNo, c.contentHash])),
    );
  });

  it('replaces the chunks of a changed text (no orphans), removes them for an empty text, and ignores a late older version', async () => {
    const { backends, handle } = await setup();
    const org = randomUUID();
    const sourceId = randomUUID();
    const t0 = Date.parse('2026-02-01T00:00:00Z');
    const long = await artifact(org, sourceId, 'Landforms', prose('drumlin fields', 90), new Date(t0));
    const short = await artifact(
      org,
      sourceId,
      'Landforms',
      'Now this source only talks about esker ridges.',
      new Date(t0 + 1000),
    );
    const empty = await artifact(org, sourceId, 'Landforms', ' \n\t ', new Date(t0 + 2000));
    const n = chunksOf(long).length;
    expect(n).toBeGreaterThan(2);

    await handle([long]);
    expect((await dumpTable(backends.dir, 'chunks_bm25', [org])).length).toBe(n);

    expect(await handle([short])).toEqual(
      report({ events: 1, indexed: 1, chunksWritten: 1, chunksDeleted: n - 1, chunksEmbedded: 1 }),
    );
    for (const table of ['chunks_bm25', 'chunks_vec'] as const) {
      expect((await dumpTable(backends.dir, table, [org])).map((r) => [r.id, r.text])).toEqual([
        [`${org}/research_artifact/${sourceId}/0`, createdOf(short).text],
      ]);
    }
    expect(await backends.bm25.search('drumlin', { orgId: org, limit: 10 })).toEqual([]);

    expect(await handle([empty])).toEqual(report({ events: 1, indexed: 1, chunksDeleted: 1 }));
    expect(await dumpTable(backends.dir, 'chunks_bm25', [org])).toEqual([]);
    expect(await dumpTable(backends.dir, 'chunks_vec', [org])).toEqual([]);
    // The removal is recorded (chunk_count 0), so the older versions arriving late stay out.
    expect(await dumpIndexedSources(database.admin, [org])).toEqual([
      expect.objectContaining({ event_id: empty.event.eventId, chunk_count: 0 }),
    ]);
    expect(await handle([long, short])).toEqual(report({ events: 2, stale: 2 }));
    expect(await dumpTable(backends.dir, 'chunks_vec', [org])).toEqual([]);
  });

  it('records nothing when an index write fails, and completes on redelivery', async () => {
    const { backends } = await setup();
    const org = randomUUID();
    const event = await artifact(org, randomUUID(), 'Cirques', prose('cirque lakes', 50));
    const n = chunksOf(event).length;
    const failing = createIndexHandler({
      db: database.app,
      logger,
      backends: {
        ...backends,
        vectors: {
          ...backends.vectors,
          upsertMany: async () => {
            throw new Error('vector index unavailable');
          },
        },
      },
    });
    await expect(failing([event])).rejects.toThrow('vector index unavailable');
    expect(await dumpIndexedSources(database.admin, [org])).toEqual([]);
    expect((await backends.bm25.hashes(metaOf(event))).size).toBe(n); // BM25 got there first: harmless

    const handle = createIndexHandler({ db: database.app, backends, logger });
    expect(await handle([event])).toEqual(report({ events: 1, indexed: 1, chunksWritten: n, chunksEmbedded: n }));
    expect(await dumpIndexedSources(database.admin, [org])).toEqual([
      expect.objectContaining({ event_id: event.event.eventId, chunk_count: n }),
    ]);
  });

  it('leaves both indexes untouched when the embedder refuses the batch', async () => {
    const { backends } = await setup();
    const org = randomUUID();
    const event = await artifact(org, randomUUID(), 'Eskers', prose('esker ridges', 30));
    const refusing = createIndexHandler({
      db: database.app,
      logger,
      backends: {
        ...backends,
        embedder: {
          ...backends.embedder,
          embed: async () => {
            throw new Error('input rejected');
          },
        },
      },
    });
    await expect(refusing([event])).rejects.toThrow('input rejected');
    expect(await backends.bm25.hashes(metaOf(event))).toEqual(new Map());
    expect(await backends.vectors.hashes(metaOf(event))).toEqual(new Map());
    expect(await dumpIndexedSources(database.admin, [org])).toEqual([]);
  });

  it('writes real vectors when the vector index changes between the hash read and the write', async () => {
    const { backends } = await setup();
    const org = randomUUID();
    const event = await artifact(org, randomUUID(), 'Pingos', prose('pingo growth', 50));
    const n = chunksOf(event).length;
    // Another writer's view: the batch's hash read claims every chunk is already stored, so
    // nothing is embedded up front; the upsert then finds them missing and asks for them.
    const prepared = prepareSource(metaOf(event), createdOf(event).text);
    const racing = {
      ...backends.vectors,
      hashesMany: async (keys: Parameters<typeof backends.vectors.hashesMany>[0]) =>
        new Map(keys.map((k) => [sourceKeyString(k), new Map(prepared.chunks.map((c) => [c.chunkNo, c.contentHash]))])),
    };
    const handle = createIndexHandler({ db: database.app, logger, backends: { ...backends, vectors: racing } });
    const calls = backends.embedder.calls;
    expect(await handle([event])).toEqual(report({ events: 1, indexed: 1, chunksWritten: n, chunksEmbedded: n }));
    expect(backends.embedder.calls - calls).toBe(1); // only the late call: nothing was embedded up front
    const expected = await query.embed(prepared.chunks.map((c) => c.text));
    const stored = await backends.vectors.search(expected[0]!, { orgId: org, limit: 50 });
    expect(stored).toHaveLength(n);
    expect(stored[0]!.chunkNo).toBe(0);
    expect(stored[0]!.score).toBeCloseTo(1, 5); // the chunk's own vector
    expect(stored.every((h) => Number.isFinite(h.score))).toBe(true);
  });
});
