import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { extraction, writtenRows } from './extraction-support.js';
import { as, startTestStore, type TestStore } from './support.js';

// StoreExtractionResult with an idempotency key (results submitted by the caller's model through
// submit_extraction): one row and one event per key and org, whatever the number of requests.

let store: TestStore;
const orgA = randomUUID();
const orgB = randomUUID();

beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => {
  await store?.close();
});

describe('StoreExtractionResult with an idempotency key', () => {
  it('stores a client result once and answers a repeat with the first row and its data', async () => {
    const before = await writtenRows(store);
    const key = `handle-${randomUUID()}`;
    const first = await store.client.call(
      'storeExtractionResult',
      extraction({ provider: 'client', idempotencyKey: key }),
      as(orgA),
    );
    expect(first.replayed).toBe(false);
    const again = await store.client.call(
      'storeExtractionResult',
      extraction({ provider: 'client', idempotencyKey: key, data: { title: 'Another title' } }),
      as(orgA),
    );
    expect(again).toMatchObject({ extractionId: first.extractionId, replayed: true });
    expect(again.storedData).toMatchObject({ title: 'Attention Is All You Need' });
    expect(await writtenRows(store)).toEqual({ rows: before.rows + 1, events: before.events + 1 });
  });

  it('keeps keys apart per org: the same key in another org is a new result', async () => {
    const key = `handle-${randomUUID()}`;
    const a = await store.client.call('storeExtractionResult', extraction({ idempotencyKey: key }), as(orgA));
    const b = await store.client.call('storeExtractionResult', extraction({ idempotencyKey: key }), as(orgB));
    expect(b.replayed).toBe(false);
    expect(b.extractionId).not.toBe(a.extractionId);
  });

  it('stores two racing requests with one key as one row', async () => {
    const before = await writtenRows(store);
    const key = `handle-${randomUUID()}`;
    const answers = await Promise.all(
      [0, 1, 2].map(() => store.client.call('storeExtractionResult', extraction({ idempotencyKey: key }), as(orgA))),
    );
    expect(new Set(answers.map((a) => a.extractionId)).size).toBe(1);
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    expect(await writtenRows(store)).toEqual({ rows: before.rows + 1, events: before.events + 1 });
  });
});
