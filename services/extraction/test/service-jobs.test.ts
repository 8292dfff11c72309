import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { extractionV1 } from '@quarry/contracts';
import { sql } from '@quarry/db';
import { createHeuristicProvider, createOpenAiProvider } from '../src/index.js';
import { completion } from './providers-openai-fixtures.js';
import { as, failure, startTestSystem, type ExtractionClient, type TestSystem } from './support.js';

// Extractions that outlast their caller's budget (the gateway's CallBudget, for clients that
// give up on a long call), over gRPC with the real artifact store and PostgreSQL: the call
// answers within the budget with a running job, the service finishes it and stores the result
// once, and GetExtractionJob reads it back by id in the same org only. A job whose instance
// stops is resumed by the next instance's sweep and still stores once; one interrupted too
// often is given up. The model is an OpenAI-compatible endpoint whose answer takes its time.

const { ExtractionStatus } = extractionV1;
const SOURCE = 'Moby-Dick; or, The Whale, by Herman Melville. Published 1851 by Harper & Brothers.';
const SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' }, author: { type: 'string' }, year: { type: 'integer' } },
  required: ['title', 'year'],
};
const VALID = { title: 'Moby-Dick', author: 'Herman Melville', year: 1851 };

/** The model: answers VALID after `delayMs`, or with `status` when set; counts the requests it got and those aborted. */
const model = { delayMs: 0, status: 200, requests: 0, aborted: 0 };
const slowFetch = (async (_input: unknown, init?: RequestInit) => {
  model.requests += 1;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, model.delayMs);
    init?.signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      model.aborted += 1;
      reject(init.signal!.reason);
    });
  });
  const body =
    model.status === 200
      ? completion(JSON.stringify(VALID))
      : { error: { message: 'bad key', type: 'invalid_request_error', code: 'invalid_api_key' } };
  return new Response(JSON.stringify(body), { status: model.status, headers: { 'content-type': 'application/json' } });
}) as typeof fetch;

const withModel = (overrides: Parameters<TestSystem['extraction']>[0] = {}) =>
  system.extraction({
    provider: 'openai',
    providers: {
      heuristic: createHeuristicProvider(),
      openai: createOpenAiProvider({ model: 'gpt-test', apiKey: 'sk-test-0123', maxRetries: 0, fetch: slowFetch }),
    },
    jobLeaseMs: 600,
    ...overrides,
  });

let system: TestSystem;
let service: ExtractionClient;
const orgA = randomUUID();
const ada = as(orgA);
const extract = (budgetMs: number, client = service, caller = ada) =>
  client.call(
    'extractData',
    {
      source: { $case: 'sourceText', sourceText: SOURCE },
      extractionSchema: SCHEMA,
      callBudget: { answerWithinMs: budgetMs },
    },
    caller,
  );
const readJob = (jobId: string, waitSeconds = 0, client = service, caller = ada) =>
  client.call('getExtractionJob', { jobId, waitSeconds }, caller);
const jobRow = async (id: string) =>
  (
    await sql<Record<string, unknown>>`select * from extraction.jobs where id = ${id}::uuid`.execute(
      system.database.admin,
    )
  ).rows[0];

beforeAll(async () => {
  system = await startTestSystem();
  service = await withModel();
  // Warm: the schema guarded and cached, the channel open, so a budget measures the model alone.
  await service.call(
    'extractData',
    {
      source: { $case: 'sourceText', sourceText: SOURCE },
      extractionSchema: SCHEMA,
      mode: extractionV1.ExtractionMode.EXTRACTION_MODE_CLIENT,
    },
    ada,
  );
});
afterAll(async () => {
  await system?.close();
});

describe('an extraction with a server model and a caller budget', () => {
  it('answers within the budget with a running job, which completes, stores once and reads back by id', async () => {
    model.delayMs = 3000;
    const before = await system.stored();
    const started = Date.now();
    const answer = await extract(300);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(answer).toMatchObject({
      status: ExtractionStatus.EXTRACTION_STATUS_RUNNING,
      provider: 'openai',
      extractionId: '',
      pollTool: 'get_extraction_job',
    });
    expect(answer.instructions).toMatch(/get_extraction_job/);
    const running = await readJob(answer.jobId!);
    expect(running).toMatchObject({ jobId: answer.jobId, status: ExtractionStatus.EXTRACTION_STATUS_RUNNING });

    const done = await readJob(answer.jobId!, 10);
    expect(done).toMatchObject({
      jobId: answer.jobId,
      status: ExtractionStatus.EXTRACTION_STATUS_COMPLETED,
      data: VALID,
      provider: 'openai',
      model: 'gpt-5.1-2025-11-13',
    });
    expect(done.overallConfidence).toBeGreaterThan(0.9);
    expect(await system.row(done.extractionId)).toMatchObject({ provider: 'openai', source_text: SOURCE });
    expect(await system.stored()).toEqual({ results: before.results + 1, events: before.events + 1 });
    expect(await readJob(answer.jobId!)).toEqual(done);
  });

  it('answers as without a budget when the model is done in time (the job is kept all the same)', async () => {
    model.delayMs = 50;
    const answer = await extract(5000);
    expect(answer).toMatchObject({ status: ExtractionStatus.EXTRACTION_STATUS_COMPLETED, data: VALID });
    expect(answer.modelUsage).toMatchObject({ provider: 'openai', inputTokens: 1117, outputTokens: 46 });
    expect(answer.jobId).toBeUndefined();
    const { rows } = await sql<{ status: string }>`
      select status from extraction.jobs where (result->>'extractionId') = ${answer.extractionId}`.execute(
      system.database.admin,
    );
    expect(rows).toEqual([{ status: 'completed' }]);
  });

  it('reads a failed job as the error the call would have answered', async () => {
    model.delayMs = 400;
    model.status = 401;
    try {
      const sync = await failure(extract(0));
      const answer = await extract(100);
      expect(answer.status).toBe(ExtractionStatus.EXTRACTION_STATUS_RUNNING);
      const error = await failure(readJob(answer.jobId!, 10));
      expect({ code: error.code, message: error.message }).toEqual({ code: sync.code, message: sync.message });
      expect(error.code).toBe('PROVIDER_FAILED');
    } finally {
      model.status = 200;
    }
  });

  it('is read only in its org: another org, a made-up id and a malformed one are all JOB_NOT_FOUND', async () => {
    model.delayMs = 300;
    const { jobId } = (await extract(1)) as { jobId: string };
    const unknown = await failure(readJob(randomUUID()));
    expect(unknown.code).toBe('JOB_NOT_FOUND');
    for (const attempt of [readJob(jobId, 0, service, as(randomUUID())), readJob('not-a-uuid')]) {
      const error = await failure(attempt);
      expect({ code: error.code, status: error.status, message: error.message }).toEqual({
        code: unknown.code,
        status: unknown.status,
        message: unknown.message,
      });
    }
    expect((await readJob(jobId, 10)).status).toBe(ExtractionStatus.EXTRACTION_STATUS_COMPLETED);
  });
});

describe('a job whose instance stops', () => {
  it('is resumed by the next instance and stores its result once', async () => {
    model.delayMs = 1500;
    const first = await withModel();
    const answer = await extract(100, first);
    const aborted = model.aborted;
    await system.stopExtraction(first);
    expect(model.aborted).toBe(aborted + 1);
    expect(await jobRow(answer.jobId!)).toMatchObject({ status: 'running', attempts: 1 });

    const before = await system.stored();
    model.delayMs = 100;
    const next = await withModel();
    const done = await readJob(answer.jobId!, 10, next);
    expect(done).toMatchObject({ status: ExtractionStatus.EXTRACTION_STATUS_COMPLETED, data: VALID });
    expect(await jobRow(answer.jobId!)).toMatchObject({ status: 'completed', attempts: 2 });
    expect(await system.stored()).toEqual({ results: before.results + 1, events: before.events + 1 });
  });

  it('is given up once interrupted too often, read as EXTRACTION_INTERRUPTED', async () => {
    model.delayMs = 5000;
    const answer = await extract(50);
    // As if every instance that took it had stopped: three attempts, and its lease lapsed.
    await sql`update extraction.jobs set attempts = 3, lease_owner = ${randomUUID()}::uuid,
      lease_expires_at = now() - interval '1 second' where id = ${answer.jobId!}::uuid`.execute(system.database.admin);
    const error = await failure(readJob(answer.jobId!, 5));
    expect(error.code).toBe('EXTRACTION_INTERRUPTED');
    expect(error.message).toMatch(/interrupted 3 times/);
  });
});

describe('the upkeep sweep', () => {
  it('deletes expired jobs and pending submissions of every org', async () => {
    const orgB = randomUUID();
    await sql`insert into extraction.jobs (id, org_id, request_id, request, provider, status, error, attempts,
        created_at, updated_at, expires_at)
      values (${randomUUID()}::uuid, ${orgB}::uuid, 'r', '{}'::jsonb, 'openai', 'failed', '{}'::jsonb, 1,
        now() - interval '2 days', now() - interval '2 days', now() - interval '1 day')`.execute(system.database.admin);
    await sql`insert into extraction.pending_submissions (id, org_id, principal, extraction_schema, schema_hash,
        source_text, created_at, expires_at)
      values (${randomUUID()}::uuid, ${orgB}::uuid, 'p', '{}'::jsonb, ${'0'.repeat(64)}, 'text',
        now() - interval '1 hour', now() - interval '1 minute')`.execute(system.database.admin);
    const count = async () =>
      (
        await sql<{ n: number }>`
          select (select count(*) from extraction.jobs where org_id = ${orgB}::uuid)
               + (select count(*) from extraction.pending_submissions where org_id = ${orgB}::uuid) as n`.execute(
          system.database.admin,
        )
      ).rows[0]!.n;
    // Inserted above (an insert that failed would have thrown); a sweep may already have run.
    for (let i = 0; i < 40 && Number(await count()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(Number(await count())).toBe(0);
  });
});
