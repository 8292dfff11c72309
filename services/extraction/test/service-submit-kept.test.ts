import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { extractionV1 } from '@quarry/contracts';
import { sql } from '@quarry/db';
import type { Identity } from '@quarry/grpc';
import { principalDigest } from '../src/core/handle.js';
import { failure, startTestSystem, storesNothing, type ExtractionClient, type TestSystem } from './support.js';

// submit_extraction without the echo: the handle refers to the schema and source text Quarry
// keeps for it (extraction.pending_submissions), so the caller sends only the handle and its
// data. What is kept is the org's and the principal's: a handle signed for another org or
// principal finds nothing there, exactly like a missing one; so does a kept row that expired.
// A handle without a kept row (issued before rows were kept) still works in the old form only.

const { HandleStatus } = extractionV1;
const HANDLE_KEY = 'h'.repeat(48);
const TEXT = 'Invoice INV-2291 from Acme Tools, dated 2024-03-05. Total due: 1,250.00 EUR.';
const SCHEMA = {
  type: 'object',
  properties: { invoice: { type: 'string' }, total: { type: 'number' }, currency: { type: 'string' } },
  required: ['invoice', 'total'],
};
const DATA = { invoice: 'INV-2291', total: 1250, currency: 'EUR' };

let system: TestSystem;
let client: ExtractionClient;
const orgA = randomUUID();
const orgB = randomUUID();
const ada = { kind: 'user', orgId: orgA, userId: randomUUID(), tokenId: randomUUID() } as const;
const eve = { kind: 'user', orgId: orgB, userId: randomUUID(), tokenId: randomUUID() } as const;
const call = (who: Omit<Identity, 'requestId'>) => ({ identity: { ...who, requestId: randomUUID() } });

const ask = async (source: extractionV1.ExtractDataRequest['source'] = { $case: 'sourceText', sourceText: TEXT }) =>
  (await client.call('extractData', { source, extractionSchema: SCHEMA }, call(ada))).handle!;
const submit = (handle: string, who: Omit<Identity, 'requestId'> = ada, data: Record<string, unknown> = DATA) =>
  client.call('submitExtraction', { handle, data }, call(who));

/** The handle's claims, and the same claims signed as Quarry signs them. */
const claimsOf = (handle: string) =>
  JSON.parse(Buffer.from(handle.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
const sign = (claims: Record<string, unknown>) => {
  const body = `qx1.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${body}.${createHmac('sha256', HANDLE_KEY).update(body).digest('base64url')}`;
};

beforeAll(async () => {
  system = await startTestSystem();
  client = await system.extraction({ handleKey: HANDLE_KEY });
});
afterAll(async () => {
  await system?.close();
});

describe('submit_extraction with only the handle and the data', () => {
  it('stores the answer from the text kept for the handle; a repeat answers the same; other data is refused', async () => {
    const handle = await ask();
    expect(typeof claimsOf(handle).ref).toBe('string');
    const before = await system.stored();
    const answer = await submit(handle);
    expect(answer).toMatchObject({ handleStatus: HandleStatus.HANDLE_STATUS_ACCEPTED, data: DATA, provider: 'client' });
    expect(answer.overallConfidence).toBeGreaterThanOrEqual(0.9);
    const invoice = answer.fields.find((f) => f.path === '/invoice')!;
    expect(TEXT.slice(invoice.spanStart, invoice.spanEnd)).toBe('INV-2291');
    expect(await system.row(answer.extractionId)).toMatchObject({ source_text: TEXT, provider: 'client' });
    expect(await system.stored()).toEqual({ results: before.results + 1, events: before.events + 1 });

    expect(await submit(handle)).toEqual({ ...answer, handleStatus: HandleStatus.HANDLE_STATUS_ALREADY_ACCEPTED });
    const error = await failure(submit(handle, ada, { ...DATA, total: 125 }));
    expect(error.code).toBe('HANDLE_ALREADY_USED');
    expect(await system.stored()).toEqual({ results: before.results + 1, events: before.events + 1 });
  });

  it('works from a stored artifact (its text is reloaded)', async () => {
    const artifactId = await system.storeArtifact(orgA, TEXT);
    const answer = await submit(await ask({ $case: 'sourceArtifactId', sourceArtifactId: artifactId }));
    expect(answer.handleStatus).toBe(HandleStatus.HANDLE_STATUS_ACCEPTED);
    expect(await system.row(answer.extractionId)).toMatchObject({ source_artifact_id: artifactId, source_text: null });
  });

  it('still checks a schema or text sent along against the handle', async () => {
    const handle = await ask();
    const other = client.call(
      'submitExtraction',
      { handle, data: DATA, extractionSchema: { ...SCHEMA, required: ['invoice'] } },
      call(ada),
    );
    expect((await failure(other)).code).toBe('HANDLE_MISMATCH');
    const sameSchema = await client.call(
      'submitExtraction',
      { handle, data: DATA, extractionSchema: SCHEMA },
      call(ada),
    );
    expect(sameSchema.handleStatus).toBe(HandleStatus.HANDLE_STATUS_ACCEPTED);
  });

  it('finds nothing kept for another org or principal, or once the row expired: exactly a missing handle', async () => {
    const handle = await ask();
    const claims = claimsOf(handle);
    expect(sign(claims)).toBe(handle);
    const missing = await failure(submit(sign({ ...claims, ref: randomUUID() })));
    expect(missing.code).toBe('HANDLE_NOT_FOUND');
    // Signed for Eve's org and principal (as if the key had leaked): Ada's kept row stays invisible to her.
    const forEve = sign({ ...claims, org: orgB, who: principalDigest(eve) });
    const forOtherToken = { ...ada, tokenId: randomUUID() };
    const forOther = sign({ ...claims, who: principalDigest(forOtherToken) });
    await storesNothing(system, async () => {
      for (const attempt of [submit(forEve, eve), submit(forOther, forOtherToken)]) {
        const error = await failure(attempt);
        expect({ code: error.code, message: error.message }).toEqual({ code: missing.code, message: missing.message });
      }
    });
    await sql`update extraction.pending_submissions set expires_at = now() - interval '1 second'
      where id = ${claims.ref as string}::uuid`.execute(system.database.admin);
    const expired = await failure(submit(handle));
    expect({ code: expired.code, message: expired.message }).toEqual({ code: missing.code, message: missing.message });
  });

  it('needs the schema and text again for a handle that has nothing kept (issued before rows were kept)', async () => {
    const { ref: _ref, ...older } = claimsOf(await ask());
    const handle = sign(older);
    const error = await failure(submit(handle));
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(error.message).toMatch(/extractionSchema/);
    const answer = await client.call(
      'submitExtraction',
      { handle, data: DATA, extractionSchema: SCHEMA, sourceText: TEXT },
      call(ada),
    );
    expect(answer.handleStatus).toBe(HandleStatus.HANDLE_STATUS_ACCEPTED);
  });
});
