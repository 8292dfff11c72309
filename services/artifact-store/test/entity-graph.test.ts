import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { artifactV1 } from '@quarry/contracts';
import { failure, storeFinding } from './extraction-support.js';
import { as, startTestStore, type TestStore } from './support.js';

// get_entity_graph at the artifact store's gRPC boundary, over real PostgreSQL: the
// neighbourhood by depth, nearest first, in pages that show every entity and relation once;
// by name or alias prefix; only through the types asked for; within one graph (the org's or a
// plan's); another org's entity like a missing one.

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore({ planEngine: true });
});
afterAll(async () => {
  await store?.close();
});

const graph = (org: string, req: Partial<artifactV1.GetEntityGraphRequest>) =>
  store.client.call('getEntityGraph', { types: [], ...req }, as(org));

/**
 * A chain hub → a1..a4 (depth 1) → b1..b4 (depth 2) → c1 (depth 3), people except the b's, and
 * an unrelated island. Returns the ids by name.
 */
async function chain(org: string, planId?: string): Promise<Record<string, string>> {
  const { id: artifactId } = await storeFinding(store, org);
  const names = ['hub', 'a1', 'a2', 'a3', 'a4', 'b1', 'b2', 'b3', 'b4', 'c1', 'island'];
  const link = (from: string, to: string) => ({ from, to, type: 'knows', evidence: [{ artifactId, page: 1 }] });
  const res = await store.client.call(
    'upsertEntities',
    {
      planId,
      entities: names.map((name) => ({
        name,
        type: name.startsWith('b') ? 'place' : 'person',
        aliases: name === 'hub' ? ['Centre'] : [],
        attributes: {},
      })),
      relations: [
        ...['a1', 'a2', 'a3', 'a4'].map((a) => link('hub', a)),
        ...[1, 2, 3, 4].map((i) => link(`b${i}`, `a${i}`)),
        link('a1', 'a2'),
        link('b1', 'c1'),
      ],
    },
    as(org),
  );
  return Object.fromEntries(names.map((name, i) => [name, res.entities[i]!.id]));
}

describe('get_entity_graph', () => {
  it('answers the neighbourhood to the depth asked, nearest first, with relations and evidence', async () => {
    const org = randomUUID();
    const ids = await chain(org);
    const name = (id: string) => Object.keys(ids).find((k) => ids[k] === id);
    const one = await graph(org, { entityId: ids.hub });
    expect(one.startIds).toEqual([ids.hub]);
    expect(one.entities.map((e) => [name(e.id), e.distance])).toEqual([
      ['hub', 0],
      ...['a1', 'a2', 'a3', 'a4'].sort((x, y) => (ids[x]! < ids[y]! ? -1 : 1)).map((a) => [a, 1]),
    ]);
    // The a1–a2 relation lies between two entities of the neighbourhood: it is shown too.
    expect(one.relations).toHaveLength(5);
    expect(one.relations[0]!.evidence).toEqual([expect.objectContaining({ page: 1 })]);
    expect(one.relations[0]!.evidenceCount).toBe(1);
    expect(one.entities[0]).toMatchObject({ name: 'hub', type: 'person', aliases: ['Centre'] });

    expect((await graph(org, { entityId: ids.hub, depth: 2 })).entities).toHaveLength(9);
    const three = await graph(org, { entityId: ids.hub, depth: 3 });
    expect(three.entities.map((e) => name(e.id))).toContain('c1');
    expect(three.entities.map((e) => name(e.id))).not.toContain('island');
    // Only through people: the places (and what lies beyond them) are not reached.
    const people = await graph(org, { entityId: ids.hub, depth: 3, types: ['Person'] });
    expect(people.entities.map((e) => name(e.id)).sort()).toEqual(['a1', 'a2', 'a3', 'a4', 'hub']);
  });

  it('pages by keyset: every entity and every relation exactly once across the pages', async () => {
    const org = randomUUID();
    const ids = await chain(org);
    const whole = await graph(org, { entityId: ids.hub, depth: 3, limit: 200 });
    expect(whole.nextCursor).toBeUndefined();
    const entities: string[] = [];
    const relations: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await graph(org, { entityId: ids.hub, depth: 3, limit: 3, cursor });
      expect(page.entities.length).toBeLessThanOrEqual(3);
      entities.push(...page.entities.map((e) => e.id));
      relations.push(...page.relations.map((r) => r.id));
      // A relation is shown once both its ends have been.
      for (const r of page.relations) expect(entities).toEqual(expect.arrayContaining([r.fromId, r.toId]));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(4);
    expect(entities).toEqual(whole.entities.map((e) => e.id));
    expect([...relations].sort()).toEqual(whole.relations.map((r) => r.id).sort());
    expect(new Set(relations).size).toBe(relations.length);
    // A cursor belongs to its arguments.
    const first = await graph(org, { entityId: ids.hub, depth: 3, limit: 3 });
    expect((await failure(graph(org, { entityId: ids.hub, depth: 2, limit: 3, cursor: first.nextCursor }))).code).toBe(
      'INVALID_CURSOR',
    );
  });

  it('starts from a name or alias prefix, ignoring case and spacing', async () => {
    const org = randomUUID();
    const ids = await chain(org);
    expect((await graph(org, { name: 'CEN' })).startIds).toEqual([ids.hub]);
    expect((await graph(org, { name: ' Hu' })).startIds).toEqual([ids.hub]);
    expect((await graph(org, { name: 'b' })).startIds.sort()).toEqual([ids.b1, ids.b2, ids.b3, ids.b4].sort());
    expect(await graph(org, { name: '%' })).toEqual({ startIds: [], entities: [], relations: [] });
    expect((await failure(graph(org, {}))).code).toBe('INVALID_ARGUMENT');
    expect((await failure(graph(org, { entityId: ids.hub, name: 'hub' }))).code).toBe('INVALID_ARGUMENT');
  });

  it("treats another org's entity exactly like a missing one, and finds nothing of it by name", async () => {
    const theirs = await chain(randomUUID());
    const org = randomUUID();
    const missing = randomUUID();
    const foreign = await failure(graph(org, { entityId: theirs.hub }));
    const absent = await failure(graph(org, { entityId: missing }));
    expect(foreign).toEqual({ ...absent, message: absent.message.replace(missing, theirs.hub!) });
    expect(foreign.code).toBe('ENTITY_NOT_FOUND');
    expect(await graph(org, { name: 'hub' })).toEqual({ startIds: [], entities: [], relations: [] });
  });

  it("keeps a plan's graph apart from the org's, and deletes it with the plan's content", async () => {
    const org = randomUUID();
    const { planId } = await store.plans.create(org);
    const inPlan = await chain(org, planId);
    const orgWide = await chain(org);
    expect(inPlan.hub).not.toBe(orgWide.hub);
    expect((await graph(org, { planId, name: 'hub' })).startIds).toEqual([inPlan.hub]);
    expect((await failure(graph(org, { entityId: inPlan.hub }))).code).toBe('ENTITY_NOT_FOUND');
    expect((await failure(graph(org, { planId: randomUUID(), entityId: inPlan.hub }))).code).toBe('ENTITY_NOT_FOUND');
    await store.client.call('purgePlanContent', { planId }, as(org));
    expect((await graph(org, { planId, name: 'hub' })).startIds).toEqual([]);
    expect((await graph(org, { name: 'hub' })).startIds).toEqual([orgWide.hub]);
  });
});
