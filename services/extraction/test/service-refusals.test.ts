import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { extractionV1, mcpV1 } from '@quarry/contracts';
import { status } from '@quarry/grpc';
import { MAX_SOURCE_TEXT_BYTES } from '../src/index.js';
import { extract, INVOICE, orgA, orgB, SCHEMA, system, useInvoiceService } from './service-invoice.js';
import { as, failure, storesNothing } from './support.js';

// extract_data calls the service refuses, against the real artifact store and plan engine on real
// PostgreSQL: each answers its error code and stores no result and no event.

useInvoiceService();

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
