import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1 } from '@quarry/contracts';
import { sql, withTenant } from '@quarry/db';
import { status } from '@quarry/grpc';
import { extraction, failure, HASH, notFound, storeFinding } from './extraction-support.js';
import { as, startTestStore, type TestStore } from './support.js';

// The other internal rpcs the extraction service calls: GetArtifactText (the text of an artifact
// of the caller's org) and CheckExtractionTarget (before a model runs: would the result's plan and
// step be accepted?); and extraction results are tenant-isolated. Plan references go to the real
// plan engine.

let store: TestStore;
const orgA = randomUUID();
const orgB = randomUUID();
let planA: { planId: string; stepId: string };
let planB: { planId: string; stepId: string };

beforeAll(async () => {
  store = await startTestStore({ planEngine: true });
  planA = await store.plans.create(orgA);
  planB = await store.plans.create(orgB);
});
afterAll(async () => {
  await store?.close();
});

const finding = (orgId: string, over: Partial<artifactV1.StoreResearchRequest> = {}) =>
  storeFinding(store, orgId, over);

describe('GetArtifactText', () => {
  it("returns an artifact's contentText, with its title and plan", async () => {
    const { id } = await finding(orgA, {
      planId: planA.planId,
      content: { text: 'ignored' },
      contentText: 'Lithium carbonate fell 20% in 2024.',
    });
    expect(await store.client.call('getArtifactText', { artifactId: id }, as(orgA))).toEqual({
      artifactId: id,
      title: 'Lithium prices',
      text: 'Lithium carbonate fell 20% in 2024.',
      planId: planA.planId,
    });
  });

  it('returns the text values of its content, one per line, when it has no contentText', async () => {
    const { id } = await finding(orgA, {
      content: { note: 'Prices fell.', sources: ['IEA report', { name: 'CATL whitepaper' }], count: 2 },
    });
    expect(await store.client.call('getArtifactText', { artifactId: id }, as(orgA))).toEqual({
      artifactId: id,
      title: 'Lithium prices',
      text: 'Prices fell.\nIEA report\nCATL whitepaper',
    });
  });

  it("refuses a missing, a malformed and another org's artifact id identically", async () => {
    const { id: theirs } = await finding(orgB);
    for (const id of [randomUUID(), 'not-a-uuid', '', theirs]) {
      expect(await failure(store.client.call('getArtifactText', { artifactId: id }, as(orgA)))).toEqual(notFound(id));
    }
    // The owner still reads it.
    expect((await store.client.call('getArtifactText', { artifactId: theirs }, as(orgB))).artifactId).toBe(theirs);
  });
});

describe('CheckExtractionTarget', () => {
  it('accepts the plans and steps StoreExtractionResult accepts, and refuses the others with the same code', async () => {
    await expect(store.client.call('checkExtractionTarget', { planId: planA.planId }, as(orgA))).resolves.toEqual({});
    await expect(
      store.client.call('checkExtractionTarget', { planId: planA.planId, stepId: planA.stepId }, as(orgA)),
    ).resolves.toEqual({});
    for (const [planId, stepId, code] of [
      [randomUUID(), undefined, 'PLAN_NOT_FOUND'],
      [planB.planId, undefined, 'PLAN_NOT_FOUND'], // another org's plan is unknown too
      ['', undefined, 'PLAN_NOT_FOUND'],
      [planA.planId, planB.stepId, 'STEP_NOT_FOUND'],
      [planA.planId, randomUUID(), 'STEP_NOT_FOUND'],
    ] as const) {
      const checked = await failure(store.client.call('checkExtractionTarget', { planId, stepId }, as(orgA)));
      const stored = await failure(
        store.client.call('storeExtractionResult', extraction({ planId, stepId }), as(orgA)),
      );
      expect([checked.code, checked.status]).toEqual([code, status.NOT_FOUND]);
      expect(checked).toEqual(stored);
    }
  });
});

describe('extraction results are tenant-isolated', () => {
  it("shows an org only its own rows, and lets no org write another's", async () => {
    const { extractionId } = await store.client.call(
      'storeExtractionResult',
      extraction({ model: 'isolation-check' }),
      as(orgA),
    );
    const visibleTo = (orgId: string) =>
      withTenant(store.db, { orgId }, (trx) =>
        trx.selectFrom('artifact.extraction_results').select('id').where('model', '=', 'isolation-check').execute(),
      );
    expect(await visibleTo(orgA)).toEqual([{ id: extractionId }]);
    expect(await visibleTo(orgB)).toEqual([]);
    // Without a tenant, the app role sees nothing at all.
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from artifact.extraction_results`.execute(
      store.db,
    );
    expect(rows[0]!.n).toBe(0);
    // Row-level security's WITH CHECK refuses a row for another org.
    const row = {
      org_id: orgA,
      data: '{}',
      field_confidences: '{}',
      fields: '[]',
      overall_confidence: 0,
      provider: 'heuristic' as const,
      model: 'm',
      extraction_schema: '{}',
      schema_hash: HASH,
      schema_version: 1,
      source_text: 'x',
      source_artifact_id: null,
      source_url: null,
      source_page: null,
      source_section: null,
      input_tokens: null,
      output_tokens: null,
      plan_id: null,
      step_id: null,
    };
    await expect(
      withTenant(store.db, { orgId: orgB }, (trx) =>
        trx.insertInto('artifact.extraction_results').values(row).execute(),
      ),
    ).rejects.toThrow(/row-level security/);
  });
});
