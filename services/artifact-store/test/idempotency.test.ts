import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1 } from '@quarry/contracts';
import { sql } from '@quarry/db';
import { QuarryError, status } from '@quarry/grpc';
import { as, startTestStore, type TestStore } from './support.js';

// Idempotency keys at the gRPC boundary, over real PostgreSQL: a retry with the same key and the
// same request gets the first result (no second row, no second content.created event), other
// content under the key is refused, keys are per org, and concurrent calls of one key store one row.

let store: TestStore;
const orgA = randomUUID();
const orgB = randomUUID();
const planId = randomUUID();
const stepId = randomUUID();

beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => {
  await store?.close();
});

const research = (key: string, over: Record<string, unknown> = {}) => ({
  artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_FINDING,
  title: 'Lithium prices',
  content: { price: 13, unit: 'USD/kg', region: 'CN' },
  contentText: 'Lithium carbonate fell to 13 USD/kg.',
  tags: ['lithium'],
  idempotencyKey: key,
  ...over,
});

/** Rows stored under `key`, and content.created events of those rows, all orgs (as the admin). */
async function storedUnder(table: string, key: string): Promise<{ rows: number; events: number }> {
  const { rows } = await sql<{ rows: number; events: number }>`
    select count(*)::int as rows,
      (select count(*)::int from events.outbox o
        where o.payload->>'sourceId' = any(array_agg(t.id::text))) as events
    from ${sql.table(table)} t where t.idempotency_key = ${key}`.execute(store.database.admin);
  return rows[0]!;
}

async function refusal(call: Promise<unknown>): Promise<QuarryError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(QuarryError);
  return error as QuarryError;
}

describe('store_research with an idempotencyKey', () => {
  it('answers a retry with the first artifact: one row, one event', async () => {
    const key = `k-${randomUUID()}`;
    const first = await store.client.call('storeResearch', research(key), as(orgA));
    // The same request, its JSON object's keys in another order.
    const again = await store.client.call(
      'storeResearch',
      research(key, { content: { unit: 'USD/kg', region: 'CN', price: 13 } }),
      as(orgA),
    );
    expect(again).toEqual(first);
    expect(await storedUnder('artifact.research_artifacts', key)).toEqual({ rows: 1, events: 1 });
  });

  it('refuses the key with other content, and stores nothing', async () => {
    const key = `k-${randomUUID()}`;
    await store.client.call('storeResearch', research(key), as(orgA));
    for (const other of [{ title: 'Cobalt prices' }, { tags: ['lithium', 'prices'] }, { content: { price: 14 } }]) {
      const error = await refusal(store.client.call('storeResearch', research(key, other), as(orgA)));
      expect(error.status).toBe(status.ALREADY_EXISTS);
      expect(error.code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect(error.message).toContain(key);
    }
    // A subagent report is another request, even under a key a client artifact used.
    const report = { planId, stepId, description: 'Prices', report: { a: 1 }, idempotencyKey: key };
    expect((await refusal(store.client.call('submitSubagentReport', report, as(orgA)))).code).toBe(
      'IDEMPOTENCY_KEY_REUSED',
    );
    expect(await storedUnder('artifact.research_artifacts', key)).toEqual({ rows: 1, events: 1 });
  });

  it('keeps keys per org: the same key in another org stores its own artifact', async () => {
    const key = `k-${randomUUID()}`;
    const a = await store.client.call('storeResearch', research(key), as(orgA));
    const b = await store.client.call('storeResearch', research(key, { title: 'Other org' }), as(orgB));
    expect(b.id).not.toBe(a.id);
    expect(b.title).toBe('Other org');
    expect(await storedUnder('artifact.research_artifacts', key)).toEqual({ rows: 2, events: 2 });
  });

  it('stores without a key as before: every call its own artifact', async () => {
    const req = { ...research(''), idempotencyKey: undefined, title: `Unkeyed ${randomUUID()}` };
    const first = await store.client.call('storeResearch', req, as(orgA));
    const second = await store.client.call('storeResearch', req, as(orgA));
    expect(second.id).not.toBe(first.id);
  });

  it('frees the key of a deleted artifact: the same request then stores a new one', async () => {
    const key = `k-${randomUUID()}`;
    const first = await store.client.call('storeResearch', research(key), as(orgA));
    await store.client.call('deleteArtifact', { artifactId: first.id }, as(orgA));
    const again = await store.client.call('storeResearch', research(key), as(orgA));
    expect(again.id).not.toBe(first.id);
    expect(await storedUnder('artifact.research_artifacts', key)).toEqual({ rows: 1, events: 1 });
  });

  it('stores one row for concurrent calls of one key, each answered with it', async () => {
    const key = `k-${randomUUID()}`;
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => store.client.call('storeResearch', research(key), as(orgA))),
    );
    expect(new Set(answers.map((a) => a.id)).size).toBe(1);
    expect(await storedUnder('artifact.research_artifacts', key)).toEqual({ rows: 1, events: 1 });
  });
});

describe('store_research_output and submit_subagent_report with an idempotencyKey', () => {
  const output = (key: string, content = '# Report\n\nPrices fell.') => ({
    planId,
    mediaType: artifactV1.MediaType.MEDIA_TYPE_MARKDOWN,
    title: 'Price report',
    content,
    idempotencyKey: key,
  });

  it('stores one output for concurrent calls of one key (each call its own transaction)', async () => {
    const key = `k-${randomUUID()}`;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => store.client.call('storeResearchOutput', output(key), as(orgA))),
    );
    expect(new Set(answers.map((a) => a.outputId)).size).toBe(1);
    expect(await storedUnder('artifact.research_outputs', key)).toEqual({ rows: 1, events: 1 });
    const error = await refusal(store.client.call('storeResearchOutput', output(key, 'Other text'), as(orgA)));
    expect(error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('answers a retried subagent report with the first report', async () => {
    const key = `k-${randomUUID()}`;
    const req = { planId, stepId, description: 'Compare prices', report: { findings: ['fell'] }, idempotencyKey: key };
    const first = await store.client.call('submitSubagentReport', req, as(orgA));
    const again = await store.client.call('submitSubagentReport', req, as(orgA));
    expect(again.reportId).toBe(first.reportId);
    expect(await storedUnder('artifact.research_artifacts', key)).toEqual({ rows: 1, events: 1 });
  });
});

describe('store_research_batch with a key per item', () => {
  const item = (key: string, title: string) => ({
    artifactType: 'finding',
    title,
    content: { title },
    contentText: `text of ${title}`,
    idempotencyKey: key,
  });

  it('answers a retried batch with the first ids; an item with other content is refused alone', async () => {
    const keys = [`k-${randomUUID()}`, `k-${randomUUID()}`, `k-${randomUUID()}`];
    const artifacts = keys.map((k, i) => item(k, `Batch ${i}`));
    const first = await store.client.call('storeResearchBatch', { artifacts }, as(orgA));
    expect(first).toMatchObject({ stored: 3, refused: 0 });

    const changed = [...artifacts.slice(0, 2), item(keys[2]!, 'Batch 2, edited'), item(`k-${randomUUID()}`, 'New')];
    const retried = await store.client.call('storeResearchBatch', { artifacts: changed }, as(orgA));
    expect(retried.results.slice(0, 2)).toEqual(first.results.slice(0, 2));
    expect(retried.results[2]).toMatchObject({ errorCode: 'IDEMPOTENCY_KEY_REUSED' });
    expect(retried.results[3]!.id).toBeDefined();
    expect(retried).toMatchObject({ stored: 3, refused: 1 });
    for (const key of keys)
      expect(await storedUnder('artifact.research_artifacts', key)).toEqual({ rows: 1, events: 1 });

    // A batch item is a store_research call: retried alone, it gets the same artifact.
    const alone = await store.client.call(
      'storeResearch',
      {
        artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_FINDING,
        title: 'Batch 0',
        content: { title: 'Batch 0' },
        contentText: 'text of Batch 0',
        tags: [],
        idempotencyKey: keys[0],
      },
      as(orgA),
    );
    expect(alone.id).toBe(first.results[0]!.id);
  });

  it('stores one artifact for two items of one batch with one key', async () => {
    const key = `k-${randomUUID()}`;
    const res = await store.client.call(
      'storeResearchBatch',
      { artifacts: [item(key, 'Twice'), item(key, 'Twice'), item(key, 'Other')] },
      as(orgA),
    );
    expect(res.results[1]!.id).toBe(res.results[0]!.id);
    expect(res.results[2]).toMatchObject({ errorCode: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await storedUnder('artifact.research_artifacts', key)).toEqual({ rows: 1, events: 1 });
  });
});
