import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  extractionWorld,
  type ExtractionWorld,
  GOOD_ANSWER,
  INVOICE,
  INVOICE_SCHEMA,
  samplingClient,
} from './extraction-fixtures.js';
import type { TestSystem } from './shared-system.js';
import { expectToolError, sleep, type ToolAnswer } from './tool-answers.js';

// extract_data through the whole system, as `quarry start` runs it, with no model on the server:
// MCP client → gateway → extraction service (schema guard, provider, validation, grounding) →
// artifact-store (row + content.created in one transaction) → indexer → search_sources. Only
// a client that asks for it (mode "offline") gets the offline heuristic extractor; every other
// client gets a submission handle for its own model (extraction-submit.suite.ts); a 2025-era client
// is never sent a sampling request. Failures store nothing: no row, no event.

export function extractionOfflineSuite(system: () => TestSystem): void {
  describe('extract_data without the client’s model', () => {
    const world = extractionWorld(system, 'offline');
    let gateway: ExtractionWorld['gateway'];
    let acme: ExtractionWorld['acme'];
    let legacy: ExtractionWorld['legacy'];
    let modernPlain: ExtractionWorld['modernPlain'];
    let rival: ExtractionWorld['rival'];
    let counts: ExtractionWorld['counts'];
    let storedRow: ExtractionWorld['storedRow'];
    let clients: ExtractionWorld['clients'];
    beforeAll(() => {
      ({ gateway, acme, legacy, modernPlain, rival, counts, storedRow, clients } = world());
    });

    describe('extract_data without a model on the server', () => {
      it('extracts with the offline heuristic when asked (mode offline), stores the result and its event', async () => {
        const before = await counts();
        const answer = await legacy.ok('extract_data', {
          mode: 'offline',
          sourceText: INVOICE,
          extractionSchema: INVOICE_SCHEMA,
          sourceUrl: 'https://northwind.example/inv/42',
          sourceLocation: { page: 1 },
        });
        expect(answer.data).toMatchObject({ status: 'completed', provider: 'heuristic', model: 'heuristic-v1' });
        expect(answer.data.data).toMatchObject({ invoiceNumber: 'INV-2024-0042', total: 1250 });
        expect(answer.data.fieldConfidences['/invoiceNumber']).toBeGreaterThan(0.8);
        expect(answer.data.overallConfidence).toBeGreaterThan(0.5);
        const invoiceField = (
          answer.data.fields as Array<{ path: string; grounding: string; spanStart?: number; spanEnd?: number }>
        ).find((f) => f.path === '/invoiceNumber')!;
        expect(INVOICE.slice(invoiceField.spanStart, invoiceField.spanEnd)).toBe('INV-2024-0042');

        expect(await counts()).toEqual({ rows: before.rows + 1, events: before.events + 1 });
        const row = await storedRow(answer.data.extractionId as string);
        expect(row).toMatchObject({
          provider: 'heuristic',
          model: 'heuristic-v1',
          schema_version: 1,
          source_text: INVOICE,
          source_url: 'https://northwind.example/inv/42',
          source_page: 1,
        });
        expect(row!.schema_hash).toMatch(/^[0-9a-f]{64}$/);
      });

      it('is searchable with sourceTable extraction_result shortly after', async () => {
        const extracted = await legacy.ok('extract_data', {
          mode: 'offline',
          sourceText: 'Reference: QX-77\nProject codename: Bluefinch',
          extractionSchema: { type: 'object', properties: { codename: { type: 'string' } } },
        });
        const { extractionId } = extracted.data;
        let found: ToolAnswer | undefined;
        const hits = (answer: ToolAnswer | undefined) =>
          (answer?.data.results ?? []) as Array<{ sourceId: string; sourceTable: string; inKeyword: boolean }>;
        // The indexer writes the two indexes one after the other: wait until the keyword index has it too.
        for (let i = 0; i < 100 && !hits(found).some((r) => r.sourceId === extractionId && r.inKeyword); i++) {
          if (i > 0) await sleep(100);
          found = await legacy.ok('search_sources', { query: 'Bluefinch', sourceTable: 'extraction_result' });
        }
        expect(hits(found)[0]).toMatchObject({
          sourceId: extractionId,
          sourceTable: 'extraction_result',
          inKeyword: true,
        });
        expect(hits(found).every((r) => r.sourceTable === 'extraction_result')).toBe(true);
        // Another org searching for the same words finds nothing.
        expect(hits(await rival.ok('search_sources', { query: 'Bluefinch' })).map((r) => r.sourceId)).not.toContain(
          extractionId,
        );
      });

      it('refuses a schema nested deeper than the gRPC hop carries, at the gateway, and stores nothing', async () => {
        const before = await counts();
        // 32 levels of JSON is the most the gRPC hop carries: deeper is refused at the gateway already.
        let deep: Record<string, unknown> = { type: 'string' };
        for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { n: deep } };
        expectToolError(
          await legacy.call('extract_data', { sourceText: INVOICE, extractionSchema: deep }),
          'INVALID_ARGUMENT',
          /extractionSchema: nests objects and arrays more than 32 levels deep/,
        );
        expect(await counts()).toEqual(before);
      });

      it('gives a model-readable argument error for a missing source or a step without its plan', async () => {
        expectToolError(
          await legacy.call('extract_data', { extractionSchema: INVOICE_SCHEMA }),
          'INVALID_ARGUMENT',
          /exactly one of sourceText, sourceArtifactId/,
        );
        const planless = await legacy.call('extract_data', {
          sourceText: INVOICE,
          extractionSchema: INVOICE_SCHEMA,
          stepId: '00000000-0000-4000-8000-000000000001',
        });
        expectToolError(planless, 'INVALID_ARGUMENT', /planId/);
      });

      it('a client that cannot sample gets a submission handle for its own model, not the heuristic', async () => {
        const before = await counts();
        for (const tools of [legacy, modernPlain]) {
          const answer = await tools.ok('extract_data', { sourceText: INVOICE, extractionSchema: INVOICE_SCHEMA });
          expect(answer.data).toMatchObject({
            status: 'awaiting_submission',
            provider: 'client',
            handleStatus: 'issued',
          });
        }
        expect(await counts()).toEqual(before);
      });

      it('never sends a sampling request to a 2025-era client, even one that declares sampling', async () => {
        const sampler = await samplingClient(gateway.url, acme.token, () => JSON.stringify(GOOD_ANSWER), 'legacy');
        clients.push(sampler.client);
        const started = Date.now();
        const answer = await sampler.ok('extract_data', { sourceText: INVOICE, extractionSchema: INVOICE_SCHEMA });
        expect(answer.data).toMatchObject({ status: 'awaiting_submission', provider: 'client' });
        expect(sampler.calls).toEqual([]);
        expect(Date.now() - started).toBeLessThan(10_000);
      });
    });
  });
}
