import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { sql, withTenant } from '@quarry/db';
import { appendContentDeletedEvents, toDeliveredEvent, type DeliveredEvent, type OutboxRecord } from '@quarry/events';
import { artifact, database, report, setup, useHandlerDatabase } from './handler-support.js';
import { dumpTable, prose, shuffled } from './helpers.js';

// content.deleted through the real batch handler (real PostgreSQL, LanceDB embedded): every
// chunk of the source leaves both indexes, for its org only, and the tombstone keeps any
// content.created of the source — redelivered, replayed, or stamped later — from indexing it again.

useHandlerDatabase();

const at = (s: number) => new Date(Date.UTC(2026, 10, 25, 12, 0, s));

/** Delete `sourceId` the real way (in its tenant's transaction); the outbox row as delivered. */
async function deletion(orgId: string, sourceId: string, occurredAt?: Date): Promise<DeliveredEvent> {
  await withTenant(database.app, { orgId }, (trx) =>
    appendContentDeletedEvents(trx, [{ orgId, sourceTable: 'research_artifact', sourceId }], { occurredAt }),
  );
  const { rows } = await sql<OutboxRecord>`
    select * from events.outbox
    where org_id = ${orgId} and topic = 'content.deleted' and payload->>'sourceId' = ${sourceId}
    order by id desc limit 1`.execute(database.admin);
  return toDeliveredEvent(rows[0]!)!;
}

async function tombstone(orgId: string, sourceId: string) {
  const { rows } = await sql<{ chunk_count: number; deleted: boolean }>`
    select chunk_count, deleted_at is not null as deleted from indexer.indexed_sources
    where org_id = ${orgId} and source_id = ${sourceId}`.execute(database.admin);
  return rows[0];
}

describe('deleting a source', () => {
  it('removes every chunk from both indexes for its org only, and records a content-free tombstone', async () => {
    const { backends, handle } = await setup();
    const orgA = randomUUID();
    const orgB = randomUUID();
    const id = randomUUID();
    await handle([await artifact(orgA, id, 'Moraines', prose('moraines', 120), at(1))]);
    await handle([await artifact(orgB, id, 'Moraines too', prose('moraines', 120), at(1))]);
    const before = await dumpTable(backends.dir, 'chunks_bm25', [orgA]);
    expect(before.length).toBeGreaterThan(1);

    const gone = await deletion(orgA, id, at(2));
    const r = await handle([gone]);
    expect(r).toEqual(report({ events: 1, deleted: 1, chunksDeleted: before.length }));
    expect(await dumpTable(backends.dir, 'chunks_bm25', [orgA])).toEqual([]);
    expect(await dumpTable(backends.dir, 'chunks_vec', [orgA])).toEqual([]);
    expect(await backends.bm25.search('moraines', { orgId: orgA, limit: 10 })).toEqual([]);
    expect((await backends.bm25.search('moraines', { orgId: orgB, limit: 10 })).length).toBeGreaterThan(0);
    expect(await tombstone(orgA, id)).toEqual({ chunk_count: 0, deleted: true });
    expect(await tombstone(orgB, id)).toEqual({ chunk_count: expect.any(Number), deleted: false });

    // The deletion delivered again: removes whatever is there again, records nothing new.
    expect(await handle([gone])).toEqual(report({ events: 1, unchanged: 1 }));
  });

  it('makes a content.created of the deleted source stale: redelivered late, replayed, or stamped after the deletion', async () => {
    const { backends, handle } = await setup();
    const org = randomUUID();
    const id = randomUUID();
    const v1 = await artifact(org, id, 'Eskers', prose('eskers', 20), at(1));
    const v2 = await artifact(org, id, 'Eskers', prose('eskers and kames', 20), at(2));
    await handle([v1]);
    const gone = await deletion(org, id, at(3));
    // A producer whose clock runs ahead stamped a creation after the deletion: still stale.
    const ahead = await artifact(org, id, 'Eskers', prose('drumlins', 20), at(9));
    expect(await handle([gone])).toMatchObject({ events: 1, deleted: 1, indexed: 0, stale: 0 });
    expect(await handle([v2])).toEqual(report({ events: 1, stale: 1 }));
    expect(await handle([v1, ahead])).toEqual(report({ events: 2, stale: 2 }));
    expect(await dumpTable(backends.dir, 'chunks_bm25', [org])).toEqual([]);
    expect(await dumpTable(backends.dir, 'chunks_vec', [org])).toEqual([]);
    expect(await tombstone(org, id)).toEqual({ chunk_count: 0, deleted: true });
  });

  it('wins within a batch whatever the order, and on a fresh index replaying the whole log indexes nothing of it', async () => {
    const org = randomUUID();
    const id = randomUUID();
    const kept = randomUUID();
    const events = [
      await artifact(org, id, 'Cirques', prose('cirques', 12), at(1)),
      await artifact(org, kept, 'Tarns', prose('tarns', 12), at(1)),
      await deletion(org, id, at(2)),
      await artifact(org, id, 'Cirques', prose('aretes', 12), at(3)),
    ];
    for (const seed of [1, 2, 3]) {
      await sql`delete from indexer.indexed_sources where org_id = ${org}`.execute(database.admin);
      const { backends, handle } = await setup();
      const r = await handle(shuffled(events, seed));
      expect(r).toMatchObject({ events: 4, deleted: 1, indexed: 1, stale: 2 });
      const ids = (await dumpTable(backends.dir, 'chunks_bm25', [org])).map((c) => c.id);
      expect(ids.length).toBeGreaterThan(0);
      expect(ids.every((c) => c.includes(kept))).toBe(true);
      // Each event again, one per batch: the tombstone holds.
      for (const e of shuffled(events, seed + 10)) await handle([e]);
      expect((await dumpTable(backends.dir, 'chunks_vec', [org])).every((c) => c.id.includes(kept))).toBe(true);
    }
  });
});
