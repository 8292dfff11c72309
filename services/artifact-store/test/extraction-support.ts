import { createHash } from 'node:crypto';
import { expect } from '@jest/globals';
import { artifactV1 } from '@quarry/contracts';
import { sql } from '@quarry/db';
import { QuarryError, status } from '@quarry/grpc';
import { as, type TestStore } from './support.js';

// Fixtures of the extraction rpcs' tests (extraction-*.test.ts): a paper, its schema and a
// complete StoreExtractionResult request for it.

const { GroundingKind } = artifactV1;
/** How a call failed, as the caller sees it. */
export async function failure(
  call: Promise<unknown>,
): Promise<{ code: string; status: number; message: string; details?: unknown }> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(QuarryError);
  const { code, status: grpcStatus, message, details } = error as QuarryError;
  return { code, status: grpcStatus, message, details };
}

export const notFound = (id: string) => ({
  code: 'ARTIFACT_NOT_FOUND',
  status: status.NOT_FOUND,
  message: `No research artifact ${id} in your organization.`,
  details: undefined,
});

export const storeFinding = (store: TestStore, orgId: string, over: Partial<artifactV1.StoreResearchRequest> = {}) =>
  store.client.call(
    'storeResearch',
    {
      artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_FINDING,
      title: 'Lithium prices',
      content: { text: 'Lithium fell 20%.' },
      tags: [],
      ...over,
    },
    as(orgId),
  );

export const SOURCE = 'Attention Is All You Need (2017), by Ashish Vaswani and Noam Shazeer.';
export const SCHEMA = {
  title: 'Paper',
  type: 'object',
  properties: {
    title: { type: 'string' },
    year: { type: 'integer' },
    authors: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
  },
  required: ['title'],
};
export const HASH = createHash('sha256').update(JSON.stringify(SCHEMA)).digest('hex');

export const extraction = (
  over: Partial<artifactV1.StoreExtractionResultRequest> = {},
): artifactV1.StoreExtractionResultRequest => ({
  data: {
    title: 'Attention Is All You Need',
    year: 2017,
    authors: [{ name: 'Ashish Vaswani' }, { name: 'Noam Shazeer' }],
  },
  fieldConfidences: { '/title': 0.95, '/year': 0.9, '/authors/0/name': 0.9, '/authors/1/name': 0.2 },
  fields: [
    { path: '/title', grounding: GroundingKind.GROUNDING_KIND_EXACT, spanStart: 0, spanEnd: 25, confidence: 0.95 },
    { path: '/year', grounding: GroundingKind.GROUNDING_KIND_NUMERIC, spanStart: 27, spanEnd: 31, confidence: 0.9 },
    {
      path: '/authors/0/name',
      grounding: GroundingKind.GROUNDING_KIND_NORMALISED,
      spanStart: 37,
      spanEnd: 51,
      confidence: 0.9,
    },
    { path: '/authors/1/name', grounding: GroundingKind.GROUNDING_KIND_NONE, confidence: 0.2 },
  ],
  overallConfidence: 0.95,
  provider: 'heuristic',
  model: 'quarry-heuristic-1',
  extractionSchema: SCHEMA,
  schemaHash: HASH,
  schemaVersion: 2,
  source: { $case: 'sourceText', sourceText: SOURCE },
  ...over,
});

/** Extraction rows and their events, counted past row-level security. */
export async function writtenRows(store: TestStore): Promise<{ rows: number; events: number }> {
  const { rows } = await sql<{ rows: number; events: number }>`
    select (select count(*)::int from artifact.extraction_results) as rows,
           (select count(*)::int from events.outbox where payload->>'sourceTable' = 'extraction_result') as events
  `.execute(store.database.admin);
  return rows[0]!;
}
