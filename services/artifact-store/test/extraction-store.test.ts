import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1 } from '@quarry/contracts';
import { sql } from '@quarry/db';
import { status } from '@quarry/grpc';
import { TEST_APP_ROLE } from '@quarry/testing';
import { extractionRow } from '../src/core/extraction-result.js';
import { MAX_TEXT_BYTES } from '../src/index.js';
import {
  extraction,
  failure,
  HASH,
  notFound,
  SCHEMA,
  SOURCE,
  storeFinding,
  writtenRows,
} from './extraction-support.js';
import { as, startTestStore, type TestStore } from './support.js';

// StoreExtractionResult, the rpc the extraction service stores its results with: the row and its
// content.created event in one transaction, or neither. Plan references go to the real plan engine.

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
const written = () => writtenRows(store);
const { GroundingKind } = artifactV1;

describe('StoreExtractionResult', () => {
  it('stores one row with every column and exactly one content.created event', async () => {
    const before = await written();
    const { extractionId } = await store.client.call(
      'storeExtractionResult',
      extraction({
        planId: planA.planId,
        stepId: planA.stepId,
        sourceUrl: 'https://arxiv.org/abs/1706.03762',
        sourcePage: 1,
        sourceSection: 'Abstract',
        inputTokens: 1200,
        outputTokens: 85,
      }),
      as(orgA),
    );
    expect(await written()).toEqual({ rows: before.rows + 1, events: before.events + 1 });

    const { rows } = await sql<
      Record<string, unknown>
    >`select * from artifact.extraction_results where id = ${extractionId}`.execute(store.database.admin);
    expect(rows).toEqual([
      {
        id: extractionId,
        org_id: orgA,
        plan_id: planA.planId,
        step_id: planA.stepId,
        data: {
          title: 'Attention Is All You Need',
          year: 2017,
          authors: [{ name: 'Ashish Vaswani' }, { name: 'Noam Shazeer' }],
        },
        field_confidences: { '/title': 0.95, '/year': 0.9, '/authors/0/name': 0.9, '/authors/1/name': 0.2 },
        fields: [
          { path: '/title', grounding: 'exact', spanStart: 0, spanEnd: 25, confidence: 0.95 },
          { path: '/year', grounding: 'numeric', spanStart: 27, spanEnd: 31, confidence: 0.9 },
          { path: '/authors/0/name', grounding: 'normalised', spanStart: 37, spanEnd: 51, confidence: 0.9 },
          { path: '/authors/1/name', grounding: 'none', confidence: 0.2 },
        ],
        overall_confidence: 0.95,
        provider: 'heuristic',
        model: 'quarry-heuristic-1',
        extraction_schema: SCHEMA,
        schema_hash: HASH,
        schema_version: 2,
        source_artifact_id: null,
        source_text: SOURCE,
        source_url: 'https://arxiv.org/abs/1706.03762',
        source_page: 1,
        source_section: 'Abstract',
        input_tokens: '1200',
        output_tokens: '85',
        idempotency_key: null,
        created_at: expect.any(Date),
      },
    ]);

    const events = await sql<{ payload: Record<string, unknown> }>`
      select payload from events.outbox where payload->>'sourceId' = ${extractionId}`.execute(store.database.admin);
    expect(events.rows).toHaveLength(1);
    expect(events.rows[0]!.payload).toEqual({
      schemaVersion: 1,
      eventId: expect.any(String),
      type: 'content.created',
      orgId: orgA,
      sourceTable: 'extraction_result',
      sourceId: extractionId,
      planId: planA.planId,
      stepId: planA.stepId,
      title: 'Extraction (Paper): Attention Is All You Need · 2017 · Ashish Vaswani',
      text: 'title: Attention Is All You Need\nyear: 2017\nauthors[0].name: Ashish Vaswani\nauthors[1].name: Noam Shazeer',
      occurredAt: expect.any(String),
      // When the row was stored, which the indexes keep for search results.
      createdAt: (rows[0]!.created_at as Date).toISOString(),
    });
  });

  it('stores an extraction from an artifact of the org, with only what was given', async () => {
    const { id: artifactId } = await finding(orgA, { contentText: SOURCE });
    const { extractionId } = await store.client.call(
      'storeExtractionResult',
      extraction({
        source: { $case: 'sourceArtifactId', sourceArtifactId: artifactId },
        provider: 'sampling',
        model: 'claude-sonnet-4-5',
        schemaVersion: 1,
      }),
      as(orgA),
    );
    const { rows } = await sql<Record<string, unknown>>`
      select plan_id, step_id, provider, model, schema_version, source_artifact_id, source_text, source_url, source_page, source_section, input_tokens, output_tokens
      from artifact.extraction_results where id = ${extractionId}`.execute(store.database.admin);
    expect(rows).toEqual([
      {
        plan_id: null,
        step_id: null,
        provider: 'sampling',
        model: 'claude-sonnet-4-5',
        schema_version: 1,
        source_artifact_id: artifactId,
        source_text: null,
        source_url: null,
        source_page: null,
        source_section: null,
        input_tokens: null,
        output_tokens: null,
      },
    ]);
  });

  it('stores an extraction that found nothing, with no event (there is no text to index)', async () => {
    const before = await written();
    const { extractionId } = await store.client.call(
      'storeExtractionResult',
      extraction({ data: {}, fieldConfidences: {}, fields: [], overallConfidence: 0 }),
      as(orgA),
    );
    expect(extractionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await written()).toEqual({ rows: before.rows + 1, events: before.events });
  });

  it("refuses a source artifact that is missing, malformed or another org's, writing nothing", async () => {
    const { id: theirs } = await finding(orgB, { contentText: SOURCE });
    const before = await written();
    for (const id of [theirs, randomUUID(), 'not-a-uuid']) {
      const call = store.client.call(
        'storeExtractionResult',
        extraction({ source: { $case: 'sourceArtifactId', sourceArtifactId: id } }),
        as(orgA),
      );
      expect(await failure(call)).toEqual(notFound(id));
    }
    expect(await written()).toEqual(before);
  });

  it("passes the plan engine's PLAN_NOT_FOUND / STEP_NOT_FOUND through, writing nothing", async () => {
    const before = await written();
    const unknownPlan = randomUUID();
    for (const [planId, stepId, code] of [
      [unknownPlan, undefined, 'PLAN_NOT_FOUND'],
      [planB.planId, undefined, 'PLAN_NOT_FOUND'], // another org's plan is unknown too
      ['', undefined, 'PLAN_NOT_FOUND'],
      [planA.planId, planB.stepId, 'STEP_NOT_FOUND'],
    ] as const) {
      const { code: got, status: grpcStatus } = await failure(
        store.client.call('storeExtractionResult', extraction({ planId, stepId }), as(orgA)),
      );
      expect([got, grpcStatus]).toEqual([code, status.NOT_FOUND]);
    }
    expect(
      (await failure(store.client.call('storeExtractionResult', extraction({ planId: unknownPlan }), as(orgA))))
        .message,
    ).toBe(`No research plan with id ${unknownPlan}.`);
    expect(await written()).toEqual(before);
  });

  const field = (over: Partial<artifactV1.ExtractedField>): artifactV1.ExtractedField => ({
    path: '/title',
    grounding: GroundingKind.GROUNDING_KIND_EXACT,
    confidence: 0.9,
    ...over,
  });
  it.each<[string, Partial<artifactV1.StoreExtractionResultRequest>, string]>([
    ['no data', { data: undefined }, 'data'],
    ['data over 1 MiB of JSON', { data: { text: 'x'.repeat(MAX_TEXT_BYTES) } }, 'data'],
    ['no schema', { extractionSchema: undefined }, 'extractionSchema'],
    ['an unknown provider', { provider: 'gpt' }, 'provider'],
    ['no provider', { provider: '' }, 'provider'],
    ['a blank model', { model: '  ' }, 'model'],
    ['a model name over 200 characters', { model: 'm'.repeat(201) }, 'model'],
    ['an upper-case schema hash', { schemaHash: HASH.toUpperCase() }, 'schemaHash'],
    ['a short schema hash', { schemaHash: HASH.slice(1) }, 'schemaHash'],
    ['schema version 0', { schemaVersion: 0 }, 'schemaVersion'],
    ['a schema version beyond the column', { schemaVersion: 2 ** 31 }, 'schemaVersion'],
    ['an overall confidence above 1', { overallConfidence: 1.01 }, 'overallConfidence'],
    ['a negative overall confidence', { overallConfidence: -0.1 }, 'overallConfidence'],
    ['an overall confidence that is not a number', { overallConfidence: NaN }, 'overallConfidence'],
    ['a field confidence above 1', { fieldConfidences: { '/title': 2 } }, 'fieldConfidences["/title"]'],
    ['an infinite field confidence', { fieldConfidences: { '/year': Infinity } }, 'fieldConfidences["/year"]'],
    ['a field confidence keyed by a non-pointer', { fieldConfidences: { title: 0.5 } }, 'fieldConfidences'],
    ['a field path that is not a JSON Pointer', { fields: [field({}), field({ path: 'title' })] }, 'fields[1].path'],
    ['a field confidence out of range', { fields: [field({ confidence: 1.5 })] }, 'fields[0].confidence'],
    [
      'a field without grounding',
      { fields: [field({ grounding: GroundingKind.GROUNDING_KIND_UNSPECIFIED })] },
      'fields[0].grounding',
    ],
    ['a span start without an end', { fields: [field({ spanStart: 3 })] }, 'fields[0].spanEnd'],
    ['a span that ends before it starts', { fields: [field({ spanStart: 9, spanEnd: 3 })] }, 'fields[0].spanEnd'],
    ['no source', { source: undefined }, 'source'],
    ['an empty source text', { source: { $case: 'sourceText', sourceText: '' } }, 'sourceText'],
    [
      'a source text over 1 MiB',
      { source: { $case: 'sourceText', sourceText: 'x'.repeat(MAX_TEXT_BYTES + 1) } },
      'sourceText',
    ],
    ['a source URL over 2048 characters', { sourceUrl: `https://example.org/${'a'.repeat(2030)}` }, 'sourceUrl'],
    ['source page 0', { sourcePage: 0 }, 'sourcePage'],
    ['a blank source section', { sourceSection: ' ' }, 'sourceSection'],
    ['a source section over 500 characters', { sourceSection: 's'.repeat(501) }, 'sourceSection'],
    ['a step without its plan', { stepId: randomUUID() }, 'stepId'],
  ])('refuses %s (INVALID_ARGUMENT naming the field) and writes nothing', async (_what, over, name) => {
    const before = await written();
    const refused = await failure(store.client.call('storeExtractionResult', extraction(over), as(orgA)));
    expect(refused.status).toBe(status.INVALID_ARGUMENT);
    expect(['INVALID_ARGUMENT', 'CONTENT_TOO_LARGE']).toContain(refused.code);
    expect(refused.message.startsWith(`\`${name}\` `)).toBe(true);
    expect(await written()).toEqual(before);
  });

  it('refuses token counts that only an in-process caller can pass (gRPC cannot encode them)', () => {
    for (const [over, name] of [
      [{ inputTokens: -1 }, 'inputTokens'],
      [{ outputTokens: 1.5 }, 'outputTokens'],
    ] as const) {
      expect(() => extractionRow(extraction(over))).toThrow(
        `\`${name}\` must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}.`,
      );
    }
  });

  it('writes neither the row nor the event when the event cannot be written', async () => {
    const before = await written();
    await sql`revoke insert on events.outbox from ${sql.id(TEST_APP_ROLE)}`.execute(store.database.admin);
    try {
      await expect(store.client.call('storeExtractionResult', extraction(), as(orgA))).rejects.toThrow();
    } finally {
      await sql`grant insert on events.outbox to ${sql.id(TEST_APP_ROLE)}`.execute(store.database.admin);
    }
    expect(await written()).toEqual(before);
  });
});
