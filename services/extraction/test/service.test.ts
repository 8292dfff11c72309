import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1, extractionV1, type mcpV1 } from '@quarry/contracts';
import { status } from '@quarry/grpc';
import { HEURISTIC_MODEL, MAX_SOURCE_TEXT_BYTES, schemaHash } from '../src/index.js';
import { as, failure, startTestSystem, storesNothing, type ExtractionClient, type TestSystem } from './support.js';

// extract_data over gRPC with the offline extractor, against the real artifact store and plan
// engine on real PostgreSQL: what is stored (row and content.created event), where the source
// text comes from (inline or an artifact of the caller's org), and that every refused call
// stores nothing. (Model providers and the sampling exchange: service-providers.test.ts.)

const { GroundingKind } = artifactV1;
let system: TestSystem;
let client: ExtractionClient;
const orgA = randomUUID();
const orgB = randomUUID();

beforeAll(async () => {
  system = await startTestSystem();
  client = await system.extraction({ provider: 'heuristic' });
});
afterAll(async () => {
  await system?.close();
});

const INVOICE = [
  'INVOICE',
  'Invoice No: INV-2024-0042',
  'Date: March 5, 2024',
  'Customer: Acme Corporation Ltd.',
  'Email: billing@acme.example',
  'Total: $1,250.00',
].join('\n');

const SCHEMA = {
  type: 'object',
  properties: {
    invoiceNumber: { type: 'string' },
    date: { type: 'string', format: 'date' },
    customer: { type: 'string' },
    email: { type: 'string', format: 'email' },
    total: { type: 'number' },
  },
  required: ['invoiceNumber', 'total'],
};

const extract = (over: Partial<extractionV1.ExtractDataRequest> = {}, orgId = orgA) =>
  client.call(
    'extractData',
    { source: { $case: 'sourceText', sourceText: INVOICE }, extractionSchema: SCHEMA, ...over },
    as(orgId),
  );

describe('inline text, offline extractor', () => {
  it('extracts, scores every field against the text, and stores the result with its content.created event', async () => {
    const { planId, stepId } = await system.createPlan(orgA);
    const before = await system.stored();
    const res = await extract({
      planId,
      stepId,
      schemaVersion: 3,
      sourceUrl: 'https://acme.example/invoices/42',
      sourceLocation: { page: 2, section: 'Summary' },
    });

    expect(res).toMatchObject({
      data: {
        invoiceNumber: 'INV-2024-0042',
        date: '2024-03-05',
        customer: 'Acme Corporation Ltd',
        email: 'billing@acme.example',
        total: 1250,
      },
      status: extractionV1.ExtractionStatus.EXTRACTION_STATUS_COMPLETED,
      provider: 'heuristic',
      model: HEURISTIC_MODEL,
      modelUsage: { provider: 'heuristic', model: HEURISTIC_MODEL, inputTokens: 0, outputTokens: 0 },
    });
    expect(res.samplingRequest).toBeUndefined();
    expect(res.extractionId).toMatch(/^[0-9a-f-]{36}$/);
    const invoiceNumber = res.fields.find((f) => f.path === '/invoiceNumber')!;
    expect(invoiceNumber).toMatchObject({
      grounding: GroundingKind.GROUNDING_KIND_EXACT,
      spanStart: INVOICE.indexOf('INV-2024-0042'),
    });
    expect(INVOICE.slice(invoiceNumber.spanStart, invoiceNumber.spanEnd)).toBe('INV-2024-0042');
    expect(res.fields.find((f) => f.path === '/date')!.grounding).toBe(GroundingKind.GROUNDING_KIND_DATE);
    expect(res.fields.find((f) => f.path === '/total')!.grounding).toBe(GroundingKind.GROUNDING_KIND_NUMERIC);
    expect(Object.keys(res.fieldConfidences).sort()).toEqual([
      '/customer',
      '/date',
      '/email',
      '/invoiceNumber',
      '/total',
    ]);
    expect(res.overallConfidence).toBeGreaterThan(0.7);
    expect(res.overallConfidence).toBeLessThanOrEqual(1);

    expect(await system.stored()).toEqual({ results: before.results + 1, events: before.events + 1 });
    const row = await system.row(res.extractionId);
    expect(row).toMatchObject({
      org_id: orgA,
      plan_id: planId,
      step_id: stepId,
      data: res.data,
      field_confidences: res.fieldConfidences,
      overall_confidence: res.overallConfidence,
      provider: 'heuristic',
      model: HEURISTIC_MODEL,
      extraction_schema: SCHEMA,
      schema_hash: schemaHash(SCHEMA),
      schema_version: 3,
      source_artifact_id: null,
      source_text: INVOICE,
      source_url: 'https://acme.example/invoices/42',
      source_page: 2,
      source_section: 'Summary',
      input_tokens: null,
      output_tokens: null,
    });
    expect((row['fields'] as unknown[]).length).toBe(res.fields.length);
    const events = await system.events(res.extractionId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      topic: 'content.created',
      org_id: orgA,
      payload: { type: 'content.created', sourceTable: 'extraction_result', planId, stepId },
    });
    expect(events[0]!.payload['text']).toContain('INV-2024-0042');
  });

  it('defaults schemaVersion to 1', async () => {
    const res = await extract();
    expect((await system.row(res.extractionId))['schema_version']).toBe(1);
  });

  it('a required field the offline extractor cannot find is EXTRACTION_INVALID naming it, and stores nothing', async () => {
    const schema = {
      ...SCHEMA,
      properties: { ...SCHEMA.properties, dueDate: { type: 'string', format: 'date' } },
      required: ['invoiceNumber', 'dueDate'],
    };
    await storesNothing(system, async () => {
      const error = await failure(extract({ extractionSchema: schema }));
      expect([error.code, error.status]).toEqual(['EXTRACTION_INVALID', status.FAILED_PRECONDITION]);
      expect(error.message).toBe(
        "The offline extractor (heuristic, no model) could not fill the schema: (root) must have required property 'dueDate'. " +
          'It leaves out what the text does not plainly state instead of guessing. Make only the fields the text surely states required, ' +
          'or extract with a model (a client that supports MCP sampling, or a model provider configured on the server).',
      );
      expect(error.details).toMatchObject({
        errors: ["(root) must have required property 'dueDate'"],
        provider: 'heuristic',
      });
    });
  });
});

describe('a stored artifact as the source', () => {
  it("reads the text of an artifact of the caller's org and stores the artifact as the source", async () => {
    const artifactId = await system.storeArtifact(orgA, INVOICE);
    const res = await extract({ source: { $case: 'sourceArtifactId', sourceArtifactId: artifactId } });
    expect(res.data).toMatchObject({ invoiceNumber: 'INV-2024-0042', total: 1250 });
    const span = res.fields.find((f) => f.path === '/invoiceNumber')!;
    expect(INVOICE.slice(span.spanStart, span.spanEnd)).toBe('INV-2024-0042');
    expect(await system.row(res.extractionId)).toMatchObject({ source_artifact_id: artifactId, source_text: null });
  });

  it("refuses another org's artifact exactly like a missing one, storing nothing", async () => {
    const theirs = await system.storeArtifact(orgB, INVOICE);
    const missing = randomUUID();
    await storesNothing(system, async () => {
      const foreign = await failure(extract({ source: { $case: 'sourceArtifactId', sourceArtifactId: theirs } }));
      const absent = await failure(extract({ source: { $case: 'sourceArtifactId', sourceArtifactId: missing } }));
      expect([foreign.code, foreign.status, foreign.details]).toEqual([
        'ARTIFACT_NOT_FOUND',
        status.NOT_FOUND,
        undefined,
      ]);
      expect([absent.code, absent.status, absent.details]).toEqual([foreign.code, foreign.status, foreign.details]);
      expect(foreign.message.replace(theirs, '<id>')).toBe(absent.message.replace(missing, '<id>'));
    });
  });
});

describe('refused calls store nothing', () => {
  it('an unknown plan, or another org’s plan, is PLAN_NOT_FOUND', async () => {
    const theirs = await system.createPlan(orgB);
    await storesNothing(system, async () => {
      expect((await failure(extract({ planId: randomUUID() }))).code).toBe('PLAN_NOT_FOUND');
      expect((await failure(extract({ planId: theirs.planId, stepId: theirs.stepId }))).code).toBe('PLAN_NOT_FOUND');
      const mine = await system.createPlan(orgA);
      expect((await failure(extract({ planId: mine.planId, stepId: randomUUID() }))).code).toBe('STEP_NOT_FOUND');
    });
  });

  it('a hostile or malformed schema is SCHEMA_REJECTED naming the rule', async () => {
    await storesNothing(system, async () => {
      const remote = await failure(
        extract({
          extractionSchema: { type: 'object', properties: { a: { $ref: 'https://evil.example/schema.json' } } },
        }),
      );
      expect([remote.code, remote.status, remote.details]).toEqual([
        'SCHEMA_REJECTED',
        status.INVALID_ARGUMENT,
        { rule: 'remote_ref' },
      ]);
      expect(remote.message).toMatch(
        /^Schema rejected \(remote_ref\): "\$ref": "https:\/\/evil.example\/schema.json" at #\/properties\/a is not a local reference/,
      );
      const redos = await failure(
        extract({ extractionSchema: { type: 'object', properties: { a: { type: 'string', pattern: '^(a+)+$' } } } }),
      );
      expect(redos.details).toEqual({ rule: 'unsafe_pattern' });
      expect((await failure(extract({ extractionSchema: { type: 'string' } }))).details).toEqual({
        rule: 'not_object_schema',
      });
    });
  });

  it('a source text that is too large or empty is SOURCE_REJECTED', async () => {
    await storesNothing(system, async () => {
      const large = await failure(
        extract({ source: { $case: 'sourceText', sourceText: 'x'.repeat(MAX_SOURCE_TEXT_BYTES + 1) } }),
      );
      expect([large.code, large.status, large.details]).toEqual([
        'SOURCE_REJECTED',
        status.INVALID_ARGUMENT,
        { rule: 'too_large' },
      ]);
      expect(large.message).toContain('the limit is 204800 bytes (200 KiB)');
      expect((await failure(extract({ source: { $case: 'sourceText', sourceText: ' \n ' } }))).details).toEqual({
        rule: 'empty',
      });
      const blankArtifact = await system.storeArtifact(orgA, '   ');
      expect(
        (await failure(extract({ source: { $case: 'sourceArtifactId', sourceArtifactId: blankArtifact } }))).details,
      ).toEqual({ rule: 'empty' });
    });
  });

  it.each<[string, Partial<extractionV1.ExtractDataRequest>, string]>([
    ['no source', { source: undefined }, '`sourceText` or `sourceArtifactId` is required (exactly one of them).'],
    ['no schema', { extractionSchema: undefined }, '`extractionSchema` is required (a JSON Schema object).'],
    [
      'an artifact id that is not a UUID',
      { source: { $case: 'sourceArtifactId', sourceArtifactId: 'abc' } },
      '`sourceArtifactId` must be a UUID.',
    ],
    ['a step without its plan', { stepId: randomUUID() }, '`stepId` needs planId (the plan the step belongs to).'],
    ['schemaVersion 0', { schemaVersion: 0 }, '`schemaVersion` must be an integer from 1 to 1000000.'],
    [
      'a relative sourceUrl',
      { sourceUrl: '/invoices/42' },
      '`sourceUrl` must be an absolute URL of at most 2048 characters.',
    ],
    ['page 0', { sourceLocation: { page: 0 } }, '`sourceLocation.page` must be at least 1.'],
  ])('%s is INVALID_ARGUMENT', async (_what, over, message) => {
    await storesNothing(system, async () => {
      const error = await failure(extract(over));
      expect([error.code, error.status, error.message]).toEqual(['INVALID_ARGUMENT', status.INVALID_ARGUMENT, message]);
    });
  });

  it('EXTRACTION_PROVIDER=sampling with a client that cannot sample is SAMPLING_UNAVAILABLE', async () => {
    const samplingOnly = await system.extraction({ provider: 'sampling' });
    await storesNothing(system, async () => {
      const error = await failure(
        samplingOnly.call(
          'extractData',
          { source: { $case: 'sourceText', sourceText: INVOICE }, extractionSchema: SCHEMA },
          as(orgA),
        ),
      );
      expect([error.code, error.status]).toEqual(['SAMPLING_UNAVAILABLE', status.FAILED_PRECONDITION]);
      expect(error.message).toContain('this client did not declare sampling on protocol 2026-07-28');
    });
  });

  it('a sampling answer sent to a server that does not sample is refused', async () => {
    const noSampling = await system.extraction({ samplingEnabled: false });
    const clientSampling: mcpV1.ClientSampling = {
      available: true,
      answer: { text: '{}', model: 'm', stopReason: 'endTurn' },
      continuation: Buffer.from('{}'),
    };
    await storesNothing(system, async () => {
      const error = await failure(
        noSampling.call(
          'extractData',
          { source: { $case: 'sourceText', sourceText: INVOICE }, extractionSchema: SCHEMA, clientSampling },
          as(orgA),
        ),
      );
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toContain('the sampling continuation does not belong to this call');
    });
  });
});
