import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import type { DeliveredEvent } from '@quarry/events';
import type { IndexReport } from '../src/index.js';
import { artifact, database, report, setup, useHandlerDatabase } from './handler-support.js';
import { createdOf, dumpIndexedSources, dumpTable, prose, shuffled } from './helpers.js';

// The batch handler given the same events again: redelivered out of order, and replayed into
// rebuilt indexes (real PostgreSQL and LanceDB, see handler-support.ts).

useHandlerDatabase();

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
    expect(
      expected.bm25.filter((r) => r.id.includes(s5)).every((r) => createdOf(tieWinner).text.includes(r.text)),
    ).toBe(true);

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
