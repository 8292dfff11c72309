import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { planV1 } from '@quarry/contracts';
import { sql } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { planSchemas, startPlanEngine } from '../src/index.js';
import { as, KEY, logger, planClient, type PlanClient } from './grpc-support.js';

// get_plan_status answers unchanged plans from memory (plan-status-cache.ts). These tests pin
// what that must never cost: a change committed before a read is always in its answer (on this
// replica or written by anyone else), time-dependent fields are computed per call, another org's
// id is still unknown, and a plan id in upper case is the same plan.

let database: TestDatabase;
let engine: Awaited<ReturnType<typeof startPlanEngine>>;
let client: PlanClient;
const orgA = randomUUID();
const orgB = randomUUID();

async function createPlan(orgId: string, steps = 2): Promise<{ planId: string; stepIds: string[] }> {
  const { planId } = await client.call(
    'createResearchPlan',
    planV1.CreateResearchPlanRequest.fromPartial({
      name: 'Cache',
      researchQuestion: 'Is it current?',
      steps: Array.from({ length: steps }, (_, i) => ({
        stepType: planV1.StepType.STEP_TYPE_SEARCH,
        instructions: `Step ${i + 1}`,
      })),
    }),
    as(orgId),
  );
  const { rows } = await sql<{
    id: string;
  }>`select id from plan.plan_steps where plan_id = ${planId} order by step_order`.execute(database.admin);
  return { planId, stepIds: rows.map((r) => r.id) };
}

const status = (orgId: string, planId: string) => client.call('getPlanStatus', { planId }, as(orgId));

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...planSchemas] });
  engine = await startPlanEngine({
    databaseUrl: database.appUrl,
    identityKey: KEY,
    logger,
    host: '127.0.0.1',
    port: 0,
    stallThresholdMs: 400,
  });
  client = planClient(engine.address);
});

afterAll(async () => {
  client?.close();
  await engine?.close(1000);
  await database?.drop();
});

describe('get_plan_status of an unchanged plan', () => {
  it('is answered from memory: it still answers while the database refuses to read plans', async () => {
    const { planId } = await createPlan(orgA);
    const first = await status(orgA, planId);
    await sql`revoke select on plan.plan_steps from ${sql.id(database.appRole)}`.execute(database.admin);
    try {
      expect(await status(orgA, planId)).toEqual(first);
    } finally {
      await sql`grant select on plan.plan_steps to ${sql.id(database.appRole)}`.execute(database.admin);
    }
  });

  it('always includes a change committed before the read, whoever wrote it (no waiting)', async () => {
    const { planId, stepIds } = await createPlan(orgA);
    await status(orgA, planId);
    for (let i = 0; i < 25; i++) {
      // Written around the plan engine, as another replica or an operator would.
      await sql`update plan.plan_steps set instructions = ${`Revision ${i}`} where id = ${stepIds[1]!}`.execute(
        database.admin,
      );
      const answer = await status(orgA, planId);
      expect(answer.pendingSteps.map((s) => s.instructions)).toContain(`Revision ${i}`);
    }
  });

  it('includes this replica’s own writes at once', async () => {
    const { planId } = await createPlan(orgA);
    expect((await status(orgA, planId)).currentStep).toBeUndefined();
    const next = await client.call('getNextStep', { planId }, as(orgA));
    expect((await status(orgA, planId)).currentStep?.stepId).toBe(next.step!.stepId);
  });

  it('computes the stall flag at each call, from the remembered data', async () => {
    const { planId } = await createPlan(orgA);
    await client.call('getNextStep', { planId }, as(orgA));
    expect((await status(orgA, planId)).stalled).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 600)); // threshold 400 ms
    const later = await status(orgA, planId);
    expect(later.stalled).toBe(true);
    expect(later.status).toBe(planV1.PlanStatus.PLAN_STATUS_STALLED);
  });

  it('never answers another org: a remembered plan’s id is unknown to it, exactly like a missing one', async () => {
    const { planId } = await createPlan(orgA);
    await status(orgA, planId);
    const foreign = await status(orgB, planId).catch((error: Error & { code?: string }) => error);
    const missing = await status(orgB, randomUUID()).catch((error: Error & { code?: string }) => error);
    expect(foreign).toMatchObject({ code: 'PLAN_NOT_FOUND' });
    expect(missing).toMatchObject({ code: 'PLAN_NOT_FOUND' });
  });

  it('treats an upper-case plan id as the same plan, for the cache and for long-polls', async () => {
    const { planId, stepIds } = await createPlan(orgA);
    const upper = planId.toUpperCase();
    await status(orgA, upper);
    await sql`update plan.plan_steps set instructions = 'Shouted' where id = ${stepIds[0]!}`.execute(database.admin);
    expect((await status(orgA, upper)).pendingSteps.map((s) => s.instructions)).toContain('Shouted');

    const started = Date.now();
    const waiting = client.call(
      'getPlanStatus',
      { planId: upper, waitSeconds: 10 },
      { ...as(orgA), deadlineMs: 15_000 },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    await client.call('getNextStep', { planId }, as(orgA));
    expect((await waiting).currentStep?.stepId).toBe(stepIds[0]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
