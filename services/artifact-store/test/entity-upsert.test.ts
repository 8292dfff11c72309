import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { artifactV1 } from '@quarry/contracts';
import { sql } from '@quarry/db';
import { failure, storeFinding } from './extraction-support.js';
import { as, startTestStore, type TestStore } from './support.js';

// upsert_entities at the artifact store's gRPC boundary, over real PostgreSQL: entities merge by
// type and normalised name or alias, a repeat changes nothing (same ids, no audit rows), a
// relation needs evidence from the caller's own artifacts, and every change is audited.

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => {
  await store?.close();
});

type Req = Partial<artifactV1.UpsertEntitiesRequest>;
const upsert = (org: string, req: Req) =>
  store.client.call('upsertEntities', { entities: [], relations: [], ...req }, as(org));
const entity = (name: string, type: string, over: Partial<artifactV1.EntityInput> = {}) => ({
  name,
  type,
  aliases: [],
  attributes: {},
  ...over,
});
const evidence = (artifactId: string, over: Partial<artifactV1.EvidenceInput> = {}) => ({ artifactId, ...over });

async function auditOf(org: string) {
  const { rows } = await sql<{ action: string; entity_id: string | null; relation_id: string | null }>`
    select action, entity_id, relation_id from artifact.entity_audit where org_id = ${org} order by id`.execute(
    store.database.admin,
  );
  return rows;
}

describe('upsert_entities', () => {
  it('merges by type and normalised name or alias (NFKC, case, spacing), and keeps the first name', async () => {
    const org = randomUUID();
    const first = await upsert(org, {
      entities: [entity('Intergovernmental Panel on Climate Change', 'Organization', { aliases: ['IPCC'] })],
    });
    const [ipcc] = first.entities;
    expect(ipcc).toMatchObject({
      name: 'Intergovernmental Panel on Climate Change',
      type: 'organization',
      created: true,
    });
    // Full-width letters, other case and spacing, found by its alias; a new alias is added.
    const again = await upsert(org, {
      entities: [entity('ＩＰＣＣ', 'ORGANIZATION ', { aliases: ['the  Panel'], attributes: { founded: '1988' } })],
    });
    expect(again.entities[0]).toMatchObject({ id: ipcc!.id, created: false, changed: true });
    // Another type is another entity.
    const person = await upsert(org, { entities: [entity('ipcc', 'person')] });
    expect(person.entities[0]!.id).not.toBe(ipcc!.id);
    const { rows } = await sql<{ name: string; aliases: string[]; attributes: object }>`
      select name, aliases, attributes from artifact.entities where id = ${ipcc!.id}`.execute(store.database.admin);
    expect(rows[0]).toEqual({
      name: 'Intergovernmental Panel on Climate Change',
      aliases: ['IPCC', 'the Panel'],
      attributes: { founded: '1988' },
    });
  });

  it('folds the entities of one call that share a name, and case folding goes beyond lower case', async () => {
    const org = randomUUID();
    const res = await upsert(org, {
      entities: [entity('Straße', 'place'), entity('STRASSE', 'place', { aliases: ['Road'] })],
    });
    expect(res.entities[0]!.id).toBe(res.entities[1]!.id);
    expect(await upsert(org, { entities: [entity('road', 'place')] })).toMatchObject({ changed: false });
  });

  it('is idempotent: the same call twice answers the same ids, changes nothing and audits nothing more', async () => {
    const org = randomUUID();
    const { id: artifactId } = await storeFinding(store, org);
    const req: Req = {
      entities: [entity('Lithium', 'chemical', { attributes: { symbol: 'Li' } }), entity('Albemarle', 'company')],
      relations: [
        {
          from: 'Albemarle',
          to: 'lithium',
          type: 'Produces',
          evidence: [evidence(artifactId, { page: 2, quote: 'Li' })],
        },
      ],
    };
    const first = await upsert(org, req);
    expect(first.changed).toBe(true);
    expect(first.relations[0]).toMatchObject({ type: 'produces', created: true, evidenceAdded: 1 });
    const audited = await auditOf(org);
    expect(audited.map((r) => r.action)).toEqual([
      'entity_created',
      'entity_created',
      'relation_created',
      'evidence_added',
    ]);

    const second = await upsert(org, req);
    expect(second).toEqual({
      entities: first.entities.map((e) => ({ ...e, created: false, changed: false })),
      relations: first.relations.map((r) => ({ ...r, created: false, evidenceAdded: 0 })),
      changed: false,
    });
    expect(await auditOf(org)).toEqual(audited);
    expect(await store.count('artifact.relation_evidence')).toBeGreaterThanOrEqual(1);

    // New evidence for a known relation is added and audited; the relation stays one.
    const more = await upsert(org, {
      relations: [
        { from: first.entities[1]!.id, to: first.entities[0]!.id, type: 'produces', evidence: [evidence(artifactId)] },
      ],
    });
    expect(more.relations[0]).toMatchObject({ id: first.relations[0]!.id, created: false, evidenceAdded: 1 });
    expect((await auditOf(org)).at(-1)).toMatchObject({
      action: 'evidence_added',
      relation_id: first.relations[0]!.id,
    });
  });

  it('refuses a relation without evidence, naming it, and stores nothing of the call', async () => {
    const org = randomUUID();
    const refused = await failure(
      upsert(org, {
        entities: [entity('A', 'x'), entity('B', 'x')],
        relations: [{ from: 'A', to: 'B', type: 'knows', evidence: [] }],
      }),
    );
    expect(refused).toMatchObject({ code: 'EVIDENCE_REQUIRED', message: expect.stringContaining('A —knows→ B') });
    expect(await auditOf(org)).toEqual([]);
  });

  it("treats another org's artifact as evidence exactly like a missing one, and rolls the call back", async () => {
    const org = randomUUID();
    const { id: theirs } = await storeFinding(store, randomUUID());
    const missing = randomUUID();
    const call = (artifactId: string) =>
      failure(
        upsert(org, {
          entities: [entity('A', 'x'), entity('B', 'x')],
          relations: [{ from: 'A', to: 'B', type: 'knows', evidence: [evidence(artifactId)] }],
        }),
      );
    const foreign = await call(theirs);
    const absent = await call(missing);
    expect(foreign).toEqual({ ...absent, message: absent.message.replace(missing, theirs) });
    expect(foreign.code).toBe('ARTIFACT_NOT_FOUND');
    expect(await auditOf(org)).toEqual([]);
  });

  it("treats another org's entity id as a relation end exactly like a missing one", async () => {
    const org = randomUUID();
    const { id: artifactId } = await storeFinding(store, org);
    const theirs = (await upsert(randomUUID(), { entities: [entity('B', 'x')] })).entities[0]!.id;
    const call = (to: string) =>
      failure(
        upsert(org, {
          entities: [entity('A', 'x')],
          relations: [{ from: 'A', to, type: 'knows', evidence: [evidence(artifactId)] }],
        }),
      );
    const missing = randomUUID();
    const foreign = await call(theirs);
    expect(foreign).toEqual({ ...(await call(missing)), message: expect.stringContaining(theirs) });
    expect(foreign.code).toBe('ENTITY_NOT_FOUND');
    expect((await call('Nobody')).code).toBe('ENTITY_NOT_FOUND');
  });

  it('refuses names that belong to two entities, and arguments past the limits', async () => {
    const org = randomUUID();
    await upsert(org, { entities: [entity('Mercury', 'planet'), entity('Hermes', 'planet')] });
    expect(
      (await failure(upsert(org, { entities: [entity('Mercury', 'planet', { aliases: ['hermes'] })] }))).code,
    ).toBe('ENTITY_CONFLICT');
    const many = Array.from({ length: 101 }, (_, i) => entity(`E${i}`, 'x'));
    expect(await failure(upsert(org, { entities: many }))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((await failure(upsert(org, { entities: [entity('x'.repeat(301), 'x')] }))).code).toBe('INVALID_ARGUMENT');
    expect((await failure(upsert(org, { entities: [entity('   ', 'x')] }))).code).toBe('INVALID_ARGUMENT');
    expect((await failure(upsert(org, {}))).code).toBe('INVALID_ARGUMENT');
  });

  it('keeps a relation only while it has evidence: deleting its only artifact removes it', async () => {
    const org = randomUUID();
    const { id: kept } = await storeFinding(store, org);
    const { id: deleted } = await storeFinding(store, org);
    const res = await upsert(org, {
      entities: [entity('A', 'x'), entity('B', 'x'), entity('C', 'x')],
      relations: [
        { from: 'A', to: 'B', type: 'knows', evidence: [evidence(deleted)] },
        { from: 'A', to: 'C', type: 'knows', evidence: [evidence(deleted), evidence(kept)] },
      ],
    });
    await store.client.call('deleteArtifact', { artifactId: deleted }, as(org));
    const { rows } = await sql<{ id: string }>`
      select id from artifact.entity_relations where org_id = ${org}`.execute(store.database.admin);
    expect(rows.map((r) => r.id)).toEqual([res.relations[1]!.id]);
  });

  it('keeps the audit insert-only', async () => {
    await expect(sql`delete from artifact.entity_audit`.execute(store.database.admin)).rejects.toThrow(/insert-only/);
  });
});
