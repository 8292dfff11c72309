import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { extractionV1 } from '@quarry/contracts';
import type { Identity } from '@quarry/grpc';
import { failure, startTestSystem, storesNothing, type ExtractionClient, type TestSystem } from './support.js';

// Extraction by the caller's own model at the gRPC boundary, with the real artifact store and
// PostgreSQL: with no model on the server and no sampling, ExtractData hands out a signed handle;
// SubmitExtraction validates the model's data against the schema, grounds every value in the
// source, stores it once per handle, and refuses any handle that is not the caller's own, live one
// exactly like a missing one.

const { ExtractionStatus, HandleStatus, ExtractionMode } = extractionV1;

const ABSTRACT = [
  'Low-dose lithium and cognitive decline in older adults: a randomised trial',
  'Aiko Tanaka, Marcus Feld and Priya Raman. Published in JAMA Psychiatry, March 2021.',
  'We enrolled 1,256 adults aged 60 years or older and followed them for 52 weeks.',
  'Participants received lithium carbonate 150 mg daily or placebo.',
  'The primary outcome, change in ADAS-Cog score, did not differ between groups (P = .41).',
  'Registration: NCT03185208. Contact: aiko.tanaka@kyoto-u.example',
].join('\n');

const SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    year: { type: 'integer' },
    sampleSize: { type: 'integer' },
    durationWeeks: { type: 'integer' },
    pValue: { type: 'number' },
    registration: { type: 'string' },
    authors: { type: 'array', items: { type: 'string' } },
  },
  required: ['title', 'sampleSize'],
  additionalProperties: false,
};

const RIGHT = {
  title: 'Low-dose lithium and cognitive decline in older adults: a randomised trial',
  year: 2021,
  sampleSize: 1256,
  durationWeeks: 52,
  pValue: 0.41,
  registration: 'NCT03185208',
  authors: ['Aiko Tanaka', 'Marcus Feld', 'Priya Raman'],
};

let system: TestSystem;
let client: ExtractionClient;
const orgA = randomUUID();
const orgB = randomUUID();
const ada = { kind: 'user', orgId: orgA, userId: randomUUID(), tokenId: randomUUID() } as const;
const asAda = (): { identity: Identity } => ({ identity: { ...ada, requestId: randomUUID() } });
const asOther = (over: Partial<Identity>): { identity: Identity } => ({
  identity: { ...ada, requestId: randomUUID(), ...over },
});

const ask = async (over: Partial<extractionV1.ExtractDataRequest> = {}, c = client) =>
  c.call(
    'extractData',
    { source: { $case: 'sourceText', sourceText: ABSTRACT }, extractionSchema: SCHEMA, ...over },
    asAda(),
  );
const submit = (
  handle: string,
  data: Record<string, unknown>,
  options = asAda(),
  sourceText: string | undefined = ABSTRACT,
) => client.call('submitExtraction', { handle, data, extractionSchema: SCHEMA, sourceText }, options);

beforeAll(async () => {
  system = await startTestSystem();
  client = await system.extraction();
});
afterAll(async () => {
  await system?.close();
});

describe('ExtractData with no model on the server and no sampling', () => {
  it('answers with a handle, the schema, the source and instructions, and stores nothing', async () => {
    await storesNothing(system, async () => {
      const answer = await ask();
      expect(answer).toMatchObject({
        status: ExtractionStatus.EXTRACTION_STATUS_AWAITING_SUBMISSION,
        handleStatus: HandleStatus.HANDLE_STATUS_ISSUED,
        provider: 'client',
        extractionId: '',
        extractionSchema: SCHEMA,
        sourceText: ABSTRACT,
      });
      expect(answer.handle).toMatch(/^qx1\.[\w-]+\.[\w-]+$/);
      expect(answer.instructions).toMatch(/submit_extraction/);
      expect(Date.parse(answer.expiresAt!)).toBeGreaterThan(Date.now());
    });
  });

  it('uses the offline extractor only when asked (mode offline)', async () => {
    const answer = await ask({
      mode: ExtractionMode.EXTRACTION_MODE_OFFLINE,
      extractionSchema: { type: 'object', properties: { registration: { type: 'string' } } },
    });
    expect(answer).toMatchObject({ status: ExtractionStatus.EXTRACTION_STATUS_COMPLETED, provider: 'heuristic' });
  });
});

describe('SubmitExtraction', () => {
  it('stores a correct answer once, grounded with spans and high confidence, with its event', async () => {
    const { handle } = await ask({ sourceUrl: 'https://journal.example/lithium', schemaVersion: 3 });
    const before = await system.stored();
    const answer = await submit(handle!, RIGHT);
    expect(answer).toMatchObject({
      status: ExtractionStatus.EXTRACTION_STATUS_COMPLETED,
      handleStatus: HandleStatus.HANDLE_STATUS_ACCEPTED,
      provider: 'client',
      data: RIGHT,
    });
    expect(answer.overallConfidence).toBeGreaterThanOrEqual(0.9);
    for (const path of ['/title', '/sampleSize', '/pValue', '/registration', '/authors/0'])
      expect(answer.fieldConfidences[path]).toBeGreaterThanOrEqual(0.85);
    const registration = answer.fields.find((f) => f.path === '/registration')!;
    expect(ABSTRACT.slice(registration.spanStart, registration.spanEnd)).toBe('NCT03185208');
    expect(await system.stored()).toEqual({ results: before.results + 1, events: before.events + 1 });
    expect(await system.row(answer.extractionId)).toMatchObject({
      provider: 'client',
      source_text: ABSTRACT,
      source_url: 'https://journal.example/lithium',
      schema_version: 3,
    });
    expect((await system.events(answer.extractionId)).map((e) => e.org_id)).toEqual([orgA]);

    // The same handle and data again: the same answer, nothing stored twice.
    const again = await submit(handle!, RIGHT);
    expect(again).toEqual({ ...answer, handleStatus: HandleStatus.HANDLE_STATUS_ALREADY_ACCEPTED });
    expect(await system.stored()).toEqual({ results: before.results + 1, events: before.events + 1 });
    // Other data under a used handle is refused; the first result stands.
    await storesNothing(system, async () => {
      const error = await failure(submit(handle!, { ...RIGHT, year: 2020 }));
      expect(error.code).toBe('HANDLE_ALREADY_USED');
      expect(error.message).toContain(answer.extractionId);
    });
  });

  it('gives low confidence to values the text does not contain or that are altered', async () => {
    const { handle } = await ask();
    const answer = await submit(handle!, {
      ...RIGHT,
      sampleSize: 1265, // altered
      pValue: 0.04, // altered
      registration: 'NCT09999999', // invented
    });
    for (const path of ['/sampleSize', '/pValue', '/registration'])
      expect(answer.fieldConfidences[path]).toBeLessThanOrEqual(0.1);
    expect(answer.fieldConfidences['/title']).toBeGreaterThanOrEqual(0.9);
    expect(answer.overallConfidence).toBeLessThan(0.6);
  });

  it('refuses data that does not match the schema, naming the fields, and stores nothing', async () => {
    const { handle } = await ask();
    await storesNothing(system, async () => {
      const error = await failure(submit(handle!, { title: RIGHT.title, sampleSize: 'about 1,256', extra: 1 }));
      expect(error.code).toBe('EXTRACTION_INVALID');
      expect(error.message).toMatch(/\/sampleSize/);
      expect(error.message).toMatch(/extra/);
    });
    // The handle is still good for a corrected answer.
    expect((await submit(handle!, RIGHT)).handleStatus).toBe(HandleStatus.HANDLE_STATUS_ACCEPTED);
  });

  it('refuses a schema or source text other than the handle’s', async () => {
    const { handle } = await ask();
    await storesNothing(system, async () => {
      expect((await failure(submit(handle!, RIGHT, asAda(), `${ABSTRACT} `))).code).toBe('HANDLE_MISMATCH');
      const otherSchema = client.call(
        'submitExtraction',
        { handle: handle!, data: RIGHT, extractionSchema: { ...SCHEMA, required: ['title'] }, sourceText: ABSTRACT },
        asAda(),
      );
      expect((await failure(otherSchema)).code).toBe('HANDLE_MISMATCH');
    });
  });

  it('refuses a handle of another org or token, a tampered, expired or made-up one exactly like a missing one', async () => {
    const { handle } = await ask();
    const [prefix, claims, mac] = handle!.split('.');
    const decoded = JSON.parse(Buffer.from(claims!, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${prefix}.${Buffer.from(JSON.stringify({ ...decoded, org: orgB })).toString('base64url')}.${mac}`;
    const flipped = `${handle!.slice(0, -2)}${handle!.endsWith('AA') ? 'BB' : 'AA'}`;
    const later = await system.extraction({ now: () => Date.now() + 61_000 });
    const missing = await failure(submit('qx1.bm90aGluZw.AAAA', RIGHT));
    expect(missing).toMatchObject({ code: 'HANDLE_NOT_FOUND' });
    const attempts = [
      submit(handle!, RIGHT, asOther({ orgId: orgB })),
      submit(handle!, RIGHT, asOther({ tokenId: randomUUID() })),
      submit(handle!, RIGHT, asOther({ userId: randomUUID() })),
      submit(forged, RIGHT, asOther({ orgId: orgB })),
      submit(flipped, RIGHT),
      submit('', RIGHT),
      later.call(
        'submitExtraction',
        { handle: handle!, data: RIGHT, extractionSchema: SCHEMA, sourceText: ABSTRACT },
        asAda(),
      ),
    ];
    await storesNothing(system, async () => {
      for (const attempt of attempts) {
        const error = await failure(attempt);
        expect({ code: error.code, status: error.status, message: error.message }).toEqual({
          code: missing.code,
          status: missing.status,
          message: missing.message,
        });
      }
    });
    // The handle itself still works for its owner.
    expect((await submit(handle!, RIGHT)).handleStatus).toBe(HandleStatus.HANDLE_STATUS_ACCEPTED);
  });

  it('works from a stored artifact: the text comes back with the handle, and is not sent again', async () => {
    const artifactId = await system.storeArtifact(orgA, ABSTRACT);
    const asked = await ask({ source: { $case: 'sourceArtifactId', sourceArtifactId: artifactId } });
    expect(asked.sourceText).toBe(ABSTRACT);
    const answer = await submit(asked.handle!, RIGHT, asAda(), undefined);
    expect(answer.overallConfidence).toBeGreaterThanOrEqual(0.9);
    expect(await system.row(answer.extractionId)).toMatchObject({ source_artifact_id: artifactId, source_text: null });
  });
});
