import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1 } from '@quarry/contracts';
import { sql } from '@quarry/db';
import { as, startTestStore, type TestStore } from './support.js';

// Concurrent store_research calls of one org are committed together (store/group-commit.ts):
// every call still gets its own artifact and event, orgs never share a transaction, and a
// write the database refuses fails only its own call.

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => {
  await store?.close();
});

const finding = (text: string): artifactV1.StoreResearchRequest => ({
  artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_FINDING,
  title: text,
  content: { text },
  contentText: text,
  tags: [],
});

/** The outbox rows of these sources (as the admin): their org and inserting transaction. */
async function outboxOf(ids: readonly string[]) {
  const { rows } = await sql<{ source_id: string; org_id: string; title: string; tx: string }>`
    select payload->>'sourceId' as source_id, org_id, payload->>'title' as title, tx::text as tx
    from events.outbox where payload->>'sourceId' = any(${ids})`.execute(store.database.admin);
  return rows;
}

describe('store_research group commit', () => {
  it('stores each concurrent call as its own artifact and event, several per transaction, never across orgs', async () => {
    const [orgA, orgB] = [randomUUID(), randomUUID()];
    const calls = Array.from({ length: 40 }, (_, i) => ({ org: i % 2 ? orgB : orgA, title: `concurrent ${i}` }));
    const answers = await Promise.all(
      calls.map((c) => store.client.call('storeResearch', finding(c.title), as(c.org))),
    );
    const ids = answers.map((a) => a.id);
    expect(new Set(ids).size).toBe(40);
    for (const [i, c] of calls.entries()) {
      expect((await store.client.call('getArtifact', { id: ids[i]! }, as(c.org))).title).toBe(c.title);
    }
    const rows = await outboxOf(ids);
    expect(rows.length).toBe(40);
    const byId = new Map(rows.map((r) => [r.source_id, r]));
    for (const [i, c] of calls.entries()) expect(byId.get(ids[i]!)).toMatchObject({ org_id: c.org, title: c.title });
    // Grouped: fewer transactions than calls, and no transaction holds two orgs' events.
    const orgsPerTx = new Map<string, Set<string>>();
    for (const r of rows) orgsPerTx.set(r.tx, (orgsPerTx.get(r.tx) ?? new Set()).add(r.org_id));
    expect(orgsPerTx.size).toBeLessThan(40);
    expect([...orgsPerTx.values()].every((orgs) => orgs.size === 1)).toBe(true);
  });

  it('fails only the call whose write the database refuses; the others of its group are stored', async () => {
    const org = randomUUID();
    const before = await store.count('artifact.research_artifacts');
    // PostgreSQL text cannot hold a NUL character: that insert fails inside the database.
    const titles = Array.from({ length: 10 }, (_, i) => (i === 4 ? 'bad\u0000title' : `fine ${i}`));
    const settled = await Promise.allSettled(
      titles.map((t) => store.client.call('storeResearch', finding(t), as(org))),
    );
    expect(settled.map((s) => s.status)).toEqual(titles.map((_, i) => (i === 4 ? 'rejected' : 'fulfilled')));
    expect(await store.count('artifact.research_artifacts')).toBe(before + 9);
    const ids = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.id] : []));
    expect((await outboxOf(ids)).length).toBe(9);
  });
});
