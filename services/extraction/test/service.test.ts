import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { artifactV1, extractionV1 } from '@quarry/contracts';
import { status } from '@quarry/grpc';
import { HEURISTIC_MODEL, schemaHash } from '../src/index.js';
import { extract, INVOICE, orgA, orgB, SCHEMA, system, useInvoiceService } from './service-invoice.js';
import { failure, storesNothing } from './support.js';

// extract_data over gRPC with the offline extractor, against the real artifact store and plan
// engine on real PostgreSQL: what is stored (row and content.created event) and where the source
// text comes from (inline or an artifact of the caller's org). (Refused calls:
// service-refusals.test.ts; model providers and the sampling exchange: service-providers.test.ts.)

const { GroundingKind } = artifactV1;
useInvoiceService();

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
