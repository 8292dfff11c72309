import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { extractionV1 } from '@quarry/contracts';
import { createDb, sql } from '@quarry/db';
import type { Kysely } from 'kysely';
import { createHeuristicProvider, createOpenAiProvider } from '../src/index.js';
import { createModelQuotas } from '../src/store/model-quotas.js';
import { completion } from './providers-openai-fixtures.js';
import { as, failure, startTestSystem, type ExtractionClient, type TestSystem } from './support.js';

// Model spend quotas at their owner, over gRPC with real PostgreSQL: extractions on a server
// model per org and UTC day (concurrent calls racing the limit run exactly the limit), model
// tokens per day (the call that crosses the limit finishes, the next is refused), another org
// unaffected, and a new UTC day starts from zero. The model is an OpenAI-compatible endpoint
// whose every answer uses 1163 tokens (the fixture's usage).

const SOURCE = 'Moby-Dick; or, The Whale, by Herman Melville. Published 1851 by Harper & Brothers.';
const SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' }, year: { type: 'integer' } },
  required: ['title', 'year'],
};
const TOKENS_PER_CALL = 1163;
const model = { requests: 0 };
const modelFetch = (async () => {
  model.requests += 1;
  return new Response(JSON.stringify(completion(JSON.stringify({ title: 'Moby-Dick', year: 1851 }))), {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });
}) as typeof fetch;

let system: TestSystem;
let service: ExtractionClient;

beforeAll(async () => {
  system = await startTestSystem();
  service = await system.extraction({
    provider: 'openai',
    providers: {
      heuristic: createHeuristicProvider(),
      openai: createOpenAiProvider({ model: 'gpt-test', apiKey: 'sk-test-0123', maxRetries: 0, fetch: modelFetch }),
    },
    modelQuotaDefaults: { modelTokensPerDay: 2000 },
  });
});
afterAll(async () => {
  await system?.close();
});

const extract = (orgId: string) =>
  service.call(
    'extractData',
    { source: { $case: 'sourceText', sourceText: SOURCE }, extractionSchema: SCHEMA },
    as(orgId),
  );

async function setQuotas(orgId: string, q: { extractionsPerDay?: number; modelTokensPerDay?: number }) {
  await sql`insert into extraction.org_quotas (org_id, extractions_per_day, model_tokens_per_day)
            values (${orgId}, ${q.extractionsPerDay ?? null}, ${q.modelTokensPerDay ?? null})`.execute(
    system.database.admin,
  );
}

async function usage(orgId: string) {
  const { rows } = await sql<{ extractions: number; model_tokens: string }>`
    select extractions, model_tokens from extraction.org_daily_usage where org_id = ${orgId}`.execute(
    system.database.admin,
  );
  return rows.map((r) => ({ extractions: r.extractions, tokens: Number(r.model_tokens) }));
}

const nextMidnightUtc = () => new Date(Date.parse(new Date().toISOString().slice(0, 10)) + 86_400_000).toISOString();

describe('extractions per day', () => {
  it('runs exactly the limit of concurrent extractions, refuses the rest naming the quota, and leaves other orgs alone', async () => {
    const orgA = randomUUID();
    const orgB = randomUUID();
    await setQuotas(orgA, { extractionsPerDay: 3, modelTokensPerDay: 1_000_000 });
    const before = model.requests;
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () =>
        extract(orgA).then(
          () => 'ok',
          (e: { code?: string }) => e.code,
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(3);
    expect(outcomes.filter((o) => o === 'QUOTA_EXCEEDED')).toHaveLength(5);
    expect(model.requests - before).toBe(3);
    expect(await usage(orgA)).toEqual([{ extractions: 3, tokens: 3 * TOKENS_PER_CALL }]);

    const refused = await failure(extract(orgA));
    expect(refused).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      message: expect.stringMatching(/^Quota extractions_per_day exceeded: .*limit is 3 a day and it has used 3/),
      details: { quota: 'extractions_per_day', limit: 3, used: 3, resetsAt: nextMidnightUtc() },
    });
    await expect(extract(orgB)).resolves.toMatchObject({ extractionId: expect.any(String) });
  });
});

describe('model tokens per day (the default every org gets: 2000)', () => {
  it('lets the call that crosses the limit finish and refuses the next, before the model is asked', async () => {
    const orgA = randomUUID();
    await extract(orgA); // 1163
    await extract(orgA); // 2326: crossed while it ran
    const before = model.requests;
    expect(await failure(extract(orgA))).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      details: { quota: 'model_tokens_per_day', limit: 2000, used: 2 * TOKENS_PER_CALL },
    });
    expect(model.requests).toBe(before);
  });

  it('does not count extractions that spend no server tokens (offline)', async () => {
    const orgA = randomUUID();
    await setQuotas(orgA, { extractionsPerDay: 0 });
    await expect(
      service.call(
        'extractData',
        {
          source: { $case: 'sourceText', sourceText: SOURCE },
          // Nothing required: the offline extractor leaves out what it is not sure of.
          extractionSchema: { type: 'object', properties: { title: { type: 'string' } } },
          mode: extractionV1.ExtractionMode.EXTRACTION_MODE_OFFLINE,
        },
        as(orgA),
      ),
    ).resolves.toMatchObject({ extractionId: expect.any(String) });
    expect(await usage(orgA)).toEqual([]);
  });
});

describe('a new UTC day', () => {
  it('starts from zero', async () => {
    const db = createDb<unknown>({ connectionString: system.database.appUrl, max: 2 });
    try {
      let now = new Date('2026-11-28T23:59:59.000Z');
      const quotas = createModelQuotas(db as Kysely<unknown>, { extractionsPerDay: 1 }, { now: () => now });
      const ctx = { identity: as(randomUUID()).identity } as Parameters<typeof quotas.admit>[0];
      await quotas.admit(ctx);
      await expect(quotas.admit(ctx)).rejects.toMatchObject({
        code: 'QUOTA_EXCEEDED',
        details: { resetsAt: '2026-11-29T00:00:00.000Z' },
      });
      now = new Date('2026-11-29T00:00:00.000Z');
      await expect(quotas.admit(ctx)).resolves.toBeUndefined();
    } finally {
      await db.destroy();
    }
  });
});
