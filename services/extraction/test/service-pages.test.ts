import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pagedPdf, pageSentence } from '@quarry/testing';
import type { Identity } from '@quarry/grpc';
import { startTestSystem, type ExtractionClient, type TestSystem } from './support.js';

// Grounding in a source with pages: extracting from a stored PDF (the real artifact store and
// converter), each grounded value names the page its span starts on; from plain text, none does.

const SCHEMA = {
  type: 'object',
  properties: { sentence: { type: 'string' }, crates: { type: 'integer' }, missing: { type: 'string' } },
  additionalProperties: false,
};

let system: TestSystem;
let client: ExtractionClient;
const org = randomUUID();
// A handle is the caller's own: the same person asks and submits.
const ada = { kind: 'user', orgId: org, userId: randomUUID(), tokenId: randomUUID() } as const;
const asAda = (): { identity: Identity } => ({ identity: { ...ada, requestId: randomUUID() } });

beforeAll(async () => {
  system = await startTestSystem();
  client = await system.extraction();
});
afterAll(async () => {
  await system?.close();
});

async function submitted(
  source: { $case: 'sourceArtifactId'; sourceArtifactId: string } | { $case: 'sourceText'; sourceText: string },
) {
  const { handle } = await client.call('extractData', { source, extractionSchema: SCHEMA }, asAda());
  return client.call(
    'submitExtraction',
    {
      handle: handle!,
      data: { sentence: pageSentence(2), crates: 33, missing: 'nowhere to be found' },
      extractionSchema: SCHEMA,
      ...(source.$case === 'sourceText' ? { sourceText: source.sourceText } : {}),
    },
    asAda(),
  );
}

describe('grounding in a document with pages', () => {
  it('gives each grounded value the page it was found on, and stores it with the field', async () => {
    const id = await system.importDocument(org, await pagedPdf(3, 'Three harbours'), 'harbours.pdf');
    const answer = await submitted({ $case: 'sourceArtifactId', sourceArtifactId: id });
    const byPath = Object.fromEntries(answer.fields.map((f) => [f.path, f]));
    expect(byPath['/sentence']).toMatchObject({ page: 2 });
    expect(byPath['/crates']).toMatchObject({ page: 3 });
    expect(byPath['/missing']!.page).toBeUndefined();
    const stored = (await system.row(answer.extractionId)) as { fields: { path: string; page?: number }[] };
    expect(stored.fields.find((f) => f.path === '/sentence')).toMatchObject({ page: 2 });
  });

  it('names no page for a source given as text', async () => {
    const answer = await submitted({ $case: 'sourceText', sourceText: `${pageSentence(2)}\n${pageSentence(3)}` });
    expect(answer.fields.every((f) => f.page === undefined)).toBe(true);
    expect(answer.fields.find((f) => f.path === '/sentence')!.spanStart).toBe(0);
  });
});
