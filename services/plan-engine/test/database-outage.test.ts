import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { planV1 } from '@quarry/contracts';
import { sql } from '@quarry/db';
import { status as grpcStatus, type QuarryError } from '@quarry/grpc';
import { createTestDatabase, refuseConnections, type TestDatabase } from '@quarry/testing';
import { planSchemas, startPlanEngine } from '../src/index.js';
import { as, KEY, logger, planClient, type PlanClient } from './grpc-support.js';

// While PostgreSQL refuses the plan engine (restarting, failing over, out of connections) a call
// fails UNAVAILABLE with a code the gateway tells the model to retry; it is not an INTERNAL bug,
// the process keeps running, and it serves again as soon as the database is back.

let database: TestDatabase;
let engine: Awaited<ReturnType<typeof startPlanEngine>>;
let client: PlanClient;
const orgA = randomUUID();

const create = (name: string) =>
  client.call(
    'createResearchPlan',
    planV1.CreateResearchPlanRequest.fromPartial({
      name,
      researchQuestion: 'Does it survive an outage?',
      steps: [{ stepType: planV1.StepType.STEP_TYPE_SEARCH, instructions: 'Look for sources' }],
    }),
    as(orgA),
  );

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...planSchemas] });
  engine = await startPlanEngine({
    databaseUrl: database.appUrl,
    identityKey: KEY,
    logger,
    host: '127.0.0.1',
    port: 0,
    stallThresholdMs: 60_000,
  });
  client = planClient(engine.address);
});

afterAll(async () => {
  client?.close();
  await engine?.close(1000);
  await database?.drop();
});

describe('a database outage', () => {
  it('fails calls as DEPENDENCY_UNAVAILABLE, then serves again with nothing lost', async () => {
    const before = await create('Before the outage');
    await refuseConnections(database, true);
    try {
      const error = (await create('During the outage').then(
        () => undefined,
        (e: unknown) => e,
      )) as QuarryError;
      expect(error).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', status: grpcStatus.UNAVAILABLE });
      expect(error.message).toMatch(/retry shortly/);
    } finally {
      await refuseConnections(database, false);
    }
    const after = await create('After the outage');
    expect((await client.call('getPlanStatus', { planId: before.planId }, as(orgA))).name).toBe('Before the outage');
    expect((await client.call('getPlanStatus', { planId: after.planId }, as(orgA))).name).toBe('After the outage');
    const { rows } = await sql<{ name: string }>`select name from plan.research_plans order by created_at`.execute(
      database.admin,
    );
    expect(rows.map((r) => r.name)).toEqual(['Before the outage', 'After the outage']);
  });
});
