import { createHash, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { assertTenantSafety, rlsReport, sql, withTenant } from '@quarry/db';
import { eventsSchemas, grantEventConsumer, type DeliveredEvent } from '@quarry/events';
import { createLocalEmbedder, prepareSource, sourceKeyString, type SourceMeta } from '@quarry/search-index';
import { createLogger } from '@quarry/telemetry';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { createIndexHandler, indexerSchemas, type IndexReport } from '../src/index.js';
import {
  appendEvent,
  dumpIndexedSources,
  dumpTable,
  openTestBackends,
  prose,
  shuffled,
  type TestBackends,
} from './helpers.js';

// The batch handler against real PostgreSQL (outbox rows, indexer.indexed_sources under RLS) and
// real LanceDB indexes with the local embedder.

const logger = createLogger({ service: 'indexer-test', level: 'silent' });
const query = createLocalEmbedder();
let database: TestDatabase;
const opened: TestBackends[] = [];

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...eventsSchemas, ...indexerSchemas] });
  await grantEventConsumer(database.admin, database.appRole);
});
afterAll(async () => {
  for (const b of opened) {
    await b.close();
    rmSync(b.dir, { recursive: true, force: true });
  }
  await database?.drop();
});

async function setup() {
  const backends = await openTestBackends();
  opened.push(backends);
  return { backends, handle: createIndexHandler({ db: database.app, backends, logger }) };
}

const artifact = (orgId: string, sourceId: string, title: string, text: string, occurredAt?: Date) =>
  appendEvent(database, {
    orgId,
    sourceTable: 'research_artifact',
    sourceId,
    title,
    text,
    ...(occurredAt ? { occurredAt } : {}),
  });
const metaOf = ({ event }: DeliveredEvent): SourceMeta => ({
  orgId: event.orgId,
  sourceTable: event.sourceTable,
  sourceId: event.sourceId,
  title: event.title,
});
const chunksOf = (d: DeliveredEvent) => prepareSource(metaOf(d), d.event.text).chunks;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const report = (r: Partial<IndexReport>): IndexReport => ({
  events: 0,
  indexed: 0,
  unchanged: 0,
  stale: 0,
  chunksWritten: 0,
  chunksDeleted: 0,
  chunksEmbedded: 0,
  ...r,
});

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
    const aChunks = prepareSource({ ...metaOf(a), artifactType: 'finding', tags: ['ice'] }, a.event.text).chunks;
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
        text_sha256: sha256(a.event.text),
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
        [`${org}/research_artifact/${sourceId}/0`, short.event.text],
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
    const prepared = prepareSource(metaOf(event), event.event.text);
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

describe('idempotency: the same events delivered 3 times, out of order, give the identical index', () => {
  it('matches delivering them once in order, and re-delivery embeds nothing', async () => {
    const [orgA, orgB] = [randomUUID(), randomUUID()];
    const t0 = Date.parse('2026-03-01T00:00:00Z');
    const at = (s: number) => new Date(t0 + s * 1000);
    const [s1, s2, s3, s4, s5] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const events: DeliveredEvent[] = [
      await artifact(orgA, s1, 'Moraines v1', prose('terminal moraines', 70), at(0)),
      await artifact(orgA, s2, 'Outwash', prose('outwash plains', 30), at(1)),
      await artifact(orgB, s1, 'Same id, other org', prose('kettle holes', 20), at(2)),
      await artifact(orgA, s1, 'Moraines v2', prose('lateral moraines and tills', 40), at(3)), // second version of s1, different text
      await artifact(orgA, s3, 'Long then short', prose('ice streams', 100), at(4)),
      await artifact(orgA, s3, 'Long then short', 'Ice streams, briefly.', at(5)),
      await artifact(orgB, s4, 'Then removed', prose('nunataks', 25), at(6)),
      await artifact(orgB, s4, 'Then removed', '', at(7)),
      // Two versions with the same occurredAt: the event id decides, the same way every time.
      await artifact(orgA, s5, 'Tie one', prose('crevasse fields', 15), at(8)),
      await artifact(orgA, s5, 'Tie two', prose('serac falls', 15), at(8)),
    ];
    const orgs = [orgA, orgB];
    const snapshot = async (dir: string) => ({
      bm25: await dumpTable(dir, 'chunks_bm25', orgs),
      vectors: await dumpTable(dir, 'chunks_vec', orgs),
      recorded: await dumpIndexedSources(database.admin, orgs),
    });
    const forget = () =>
      sql`delete from indexer.indexed_sources where org_id = any(${orgs}::uuid[])`.execute(database.admin);

    // Once, in order, one event per batch.
    const once = await setup();
    for (const e of events) await once.handle([e]);
    const expected = await snapshot(once.backends.dir);
    expect(expected.bm25.length).toBeGreaterThan(5);
    expect(expected.vectors.map((r) => r.id)).toEqual(expected.bm25.map((r) => r.id));
    expect(expected.recorded).toHaveLength(6);
    const texts = new Set(expected.bm25.map((r) => r.text));
    expect([...texts].some((t) => t.includes('terminal moraines'))).toBe(false); // s1 v2 replaced v1
    expect([...texts].some((t) => t.includes('nunataks'))).toBe(false); // s4 emptied
    const tieWinner = [events[8]!, events[9]!].sort((x, y) => (x.event.eventId < y.event.eventId ? -1 : 1))[1]!;
    expect(expected.bm25.filter((r) => r.id.includes(s5)).every((r) => tieWinner.event.text.includes(r.text))).toBe(
      true,
    );

    // Re-delivering all of them, shuffled, in one batch: nothing changes, nothing is embedded.
    const calls = once.backends.embedder.calls;
    expect(await once.handle(shuffled(events, 7))).toEqual(report({ events: 10, unchanged: 6, stale: 4 }));
    expect(once.backends.embedder.calls).toBe(calls);
    expect(await snapshot(once.backends.dir)).toEqual(expected);

    // Three copies, shuffled, in batches of 1 to 4, into fresh indexes and fresh state.
    await forget();
    const thrice = await setup();
    const deliveries = shuffled([...events, ...events, ...events], 20261122);
    let totals = report({});
    for (let i = 0, size = 1; i < deliveries.length; i += size, size = (size % 4) + 1) {
      const r = await thrice.handle(deliveries.slice(i, i + size));
      totals = Object.fromEntries(
        Object.entries(totals).map(([k, v]) => [k, v + r[k as keyof IndexReport]]),
      ) as unknown as IndexReport;
    }
    expect(totals.events).toBe(30);
    expect(totals.indexed + totals.unchanged + totals.stale).toBe(30);
    expect(await snapshot(thrice.backends.dir)).toEqual(expected);
  });
});

describe('replaying the log into rebuilt indexes', () => {
  it('restores the newest versions from the recorded state alone (quarry reindex need not clear it)', async () => {
    const org = randomUUID();
    const [s1, s2] = [randomUUID(), randomUUID()];
    const t0 = Date.parse('2026-05-01T00:00:00Z');
    const events = [
      await artifact(org, s1, 'Old', prose('rock glaciers', 40), new Date(t0)),
      await artifact(org, s1, 'New', prose('rock glaciers revisited', 20), new Date(t0 + 1000)),
      await artifact(org, s2, 'Only', prose('solifluction lobes', 30), new Date(t0 + 2000)),
    ];
    const first = await setup();
    for (const e of events) await first.handle([e]);
    const before = await dumpIndexedSources(database.admin, [org]);
    const indexes = {
      bm25: await dumpTable(first.backends.dir, 'chunks_bm25', [org]),
      vectors: await dumpTable(first.backends.dir, 'chunks_vec', [org]),
    };

    // Empty indexes (dropped and recreated), the same recorded state, the whole log again.
    const rebuilt = await setup();
    const replay = await rebuilt.handle(events);
    const chunks = indexes.bm25.length;
    expect(replay).toEqual(
      report({ events: 3, unchanged: 2, stale: 1, chunksWritten: chunks, chunksEmbedded: chunks }),
    );
    expect({
      bm25: await dumpTable(rebuilt.backends.dir, 'chunks_bm25', [org]),
      vectors: await dumpTable(rebuilt.backends.dir, 'chunks_vec', [org]),
    }).toEqual(indexes);
    expect(await dumpIndexedSources(database.admin, [org])).toEqual(before);
  });
});

describe('tenancy of indexer.indexed_sources', () => {
  it('is RLS-protected: another org neither sees nor changes the rows', async () => {
    await expect(
      assertTenantSafety(database.admin, { schemas: ['indexer'], appRole: database.appRole }),
    ).resolves.toBeUndefined();
    const tables = (await rlsReport(database.admin, ['indexer'])).filter(
      (t) => !t.table.startsWith('kysely_migration'),
    );
    expect(
      tables.map((t) => ({
        table: t.table,
        hasOrgId: t.hasOrgId,
        enabled: t.rlsEnabled,
        forced: t.rlsForced,
        policies: t.policies,
      })),
    ).toEqual([
      { table: 'indexed_sources', hasOrgId: true, enabled: true, forced: true, policies: ['tenant_isolation'] },
    ]);

    const { handle } = await setup();
    const [orgA, orgB] = [randomUUID(), randomUUID()];
    const event = await artifact(orgA, randomUUID(), 'Private', 'Org A only.');
    await handle([event]);
    const asB = <T>(fn: Parameters<typeof withTenant<unknown, T>>[2]) => withTenant(database.app, { orgId: orgB }, fn);
    expect((await asB((trx) => sql`select * from indexer.indexed_sources`.execute(trx))).rows).toEqual([]);
    const updated = await asB((trx) =>
      sql`update indexer.indexed_sources set chunk_count = 99 where org_id = ${orgA}`.execute(trx),
    );
    expect(Number(updated.numAffectedRows)).toBe(0);
    await expect(
      asB((trx) =>
        sql`
        insert into indexer.indexed_sources (org_id, source_table, source_id, event_id, occurred_at, text_sha256, chunk_count, embedder)
        values (${orgA}, 'research_artifact', 'forged', ${randomUUID()}, now(), ${sha256('x')}, 1, 'e')`.execute(trx),
      ),
    ).rejects.toThrow(/row-level security/);
    // Without a tenant the app role sees nothing at all.
    expect((await sql`select * from indexer.indexed_sources`.execute(database.app)).rows).toEqual([]);
    expect(await dumpIndexedSources(database.admin, [orgA])).toEqual([expect.objectContaining({ chunk_count: 1 })]);
  });
});
