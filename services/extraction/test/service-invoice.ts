import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from '@jest/globals';
import type { extractionV1 } from '@quarry/contracts';
import { as, startTestSystem, type ExtractionClient, type TestSystem } from './support.js';

// Shared by the extract_data service test files (service.test.ts, service-refusals.test.ts): the
// system with an extraction service on the offline extractor, two orgs, an invoice, the schema of
// its fields, and extract_data of it.

export let system: TestSystem;
let client: ExtractionClient;
export const orgA = randomUUID();
export const orgB = randomUUID();

/** The system and the service for the tests of the file (`system`: a live binding). */
export function useInvoiceService(): void {
  beforeAll(async () => {
    system = await startTestSystem();
    client = await system.extraction({ provider: 'heuristic' });
  });
  afterAll(async () => {
    await system?.close();
  });
}

export const INVOICE = [
  'INVOICE',
  'Invoice No: INV-2024-0042',
  'Date: March 5, 2024',
  'Customer: Acme Corporation Ltd.',
  'Email: billing@acme.example',
  'Total: $1,250.00',
].join('\n');

export const SCHEMA = {
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

/** extract_data of the invoice with its schema, as a user of `orgId`; `over` replaces request fields. */
export const extract = (over: Partial<extractionV1.ExtractDataRequest> = {}, orgId = orgA) =>
  client.call(
    'extractData',
    { source: { $case: 'sourceText', sourceText: INVOICE }, extractionSchema: SCHEMA, ...over },
    as(orgId),
  );
