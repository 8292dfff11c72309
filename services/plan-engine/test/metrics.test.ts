import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { planV1 } from '@quarry/contracts';
import { createDb, sql } from '@quarry/db';
import { createMetrics, metricsText } from '@quarry/telemetry';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import {
  countStalledPlans,
  grantPlanMetrics,
  loadPlanEngineConfig,
  planSchemas,
  registerPlanMetrics,
  startPlanEngine,
} from '../src/index.js';
import { as, KEY, logger, planClient, type PlanClient } from './grpc-support.js';

// The stalled-plans gauge over real PostgreSQL and the real gRPC service: across every org, it
// counts exactly the plans that get_plan_status and list_active_plans report as stalled, and the
// plan engine's own /metrics serves it.

let database: TestDatabase;
let engine: Awaited<ReturnType<typeof startPlanEngine>>;
let client: PlanClient;
const orgA = randomUUID();
const orgB = randomUUID();
/** Every plan of the scenario, by name, with the org it belongs to. */
const plans = new Map<string, { orgId: string; planId: string; stepIds: string[] }>();

const scrape = async (): Promise<string> => {
  const response = await fetch(`http://127.0.0.1:${engine.metricsPort}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
};
const sample = (text: string, name: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

async function create(name: string, orgId: string, steps: number): Promise<{ planId: string; stepIds: string[] }> {
  const created = await client.call(
    'createResearchPlan',
    planV1.CreateResearchPlanRequest.fromPartial({
      name,
      researchQuestion: `What about ${name}?`,
      steps: Array.from({ length: steps }, (_, i) => ({
        stepType: planV1.StepType.STEP_TYPE_SEARCH,
        instructions: `Step ${i + 1}`,
      })),
    }),
    as(orgId),
  );
  const { rows } = await sql<{
    id: string;
  }>`select id from plan.plan_steps where plan_id = ${created.planId} order by step_order`.execute(database.admin);
  const plan = { orgId, planId: created.planId, stepIds: rows.map((r) => r.id) };
  plans.set(name, plan);
  return plan;
}
const claim = (name: string) =>
  client.call('getNextStep', { planId: plans.get(name)!.planId }, as(plans.get(name)!.orgId));
/** Move a step's start back in time, as if a client had claimed it that long ago and vanished. */
const startedAgo = (stepId: string, age: string) =>
  sql`update plan.plan_steps set started_at = now() - ${age}::interval where id = ${stepId}`.execute(database.admin);
const storeStatus = (name: string, status: string) =>
  sql`update plan.research_plans set status = ${status} where id = ${plans.get(name)!.planId}`.execute(database.admin);

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...planSchemas] });
  await grantPlanMetrics(database.admin, database.appRole);
  // As main.ts starts it: its own process, so it serves its own /metrics (on HOST).
  engine = await startPlanEngine({
    databaseUrl: database.appUrl,
    identityKey: KEY,
    logger,
    host: '127.0.0.1',
    port: 0,
    metricsPort: 0,
  });
  client = planClient(engine.address);

  // Org A
  await create('overdue', orgA, 2); // executing, step 1 in progress for 2 h: stalled
  await claim('overdue');
  await startedAgo(plans.get('overdue')!.stepIds[0]!, '2 hours');
  await create('recent', orgA, 2); // executing, step 1 in progress for 5 min: not stalled
  await claim('recent');
  await startedAgo(plans.get('recent')!.stepIds[0]!, '5 minutes');
  await create('untouched', orgA, 1); // planning: not stalled
  await create('stored-stalled', orgA, 1); // stored as stalled (detect_stall): stalled
  await claim('stored-stalled');
  await storeStatus('stored-stalled', 'stalled');
  // awaiting_review, with another step in progress for 2 h: the status says awaiting_review
  await create('in-review', orgA, 2);
  await claim('in-review');
  await claim('in-review');
  await client.call(
    'requestUserReview',
    {
      planId: plans.get('in-review')!.planId,
      stepId: plans.get('in-review')!.stepIds[1]!,
      summary: 'Look',
      questions: [],
    },
    as(orgA),
  );
  await startedAgo(plans.get('in-review')!.stepIds[0]!, '2 hours');

  // Org B
  await create('two-overdue', orgB, 3); // two steps overdue: one stalled plan
  await claim('two-overdue');
  await claim('two-overdue');
  await startedAgo(plans.get('two-overdue')!.stepIds[0]!, '3 hours');
  await startedAgo(plans.get('two-overdue')!.stepIds[1]!, '45 minutes');
  await create('failed', orgB, 2); // failed (terminal) with a step left in progress for 2 h: not stalled
  await claim('failed');
  await startedAgo(plans.get('failed')!.stepIds[0]!, '2 hours');
  await storeStatus('failed', 'failed');
});
afterAll(async () => {
  client?.close();
  await engine?.close(1000);
  await database?.drop();
});

const STALLED = ['overdue', 'stored-stalled', 'two-overdue'];

describe('quarry_plan_stalled_plans', () => {
  it('is what get_plan_status and list_active_plans report as stalled, summed over every org', async () => {
    // get_plan_status, plan by plan, as its own org.
    const reported: string[] = [];
    for (const [name, { orgId, planId }] of plans) {
      const status = await client.call('getPlanStatus', { planId }, as(orgId));
      if (status.status === planV1.PlanStatus.PLAN_STATUS_STALLED) reported.push(name);
    }
    expect(reported.sort()).toEqual([...STALLED].sort());

    // list_active_plans, org by org.
    const listed: string[] = [];
    for (const orgId of [orgA, orgB]) {
      const page = await client.call('listActivePlans', { limit: 50 }, as(orgId));
      for (const p of page.plans)
        if (p.status === planV1.PlanStatus.PLAN_STATUS_STALLED)
          listed.push([...plans].find(([, v]) => v.planId === p.planId)![0]);
    }
    expect(listed.sort()).toEqual([...STALLED].sort());

    // The app role alone, no tenant set: the aggregate over both orgs.
    expect(await countStalledPlans(database.app, { thresholdMs: 30 * 60_000, timeoutMs: 2_000 })).toBe(3);
  });

  it('is served on the plan engine’s own /metrics, with process metrics and no failures', async () => {
    const text = await scrape();
    expect(text).toContain('# TYPE quarry_plan_stalled_plans gauge');
    expect(text).toContain('quarry_plan_stalled_plans{service="plan-engine"} 3');
    expect(sample(text, 'quarry_plan_metrics_failures_total')).toBe(0);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('follows the plans at each scrape: a stalled plan whose step moves again stops counting', async () => {
    const { planId, stepIds } = plans.get('overdue')!;
    await client.call(
      'submitStepResult',
      planV1.SubmitStepResultRequest.fromPartial({
        planId,
        stepId: stepIds[0]!,
        result: { summary: 'done' },
        confidence: 0.9,
      }),
      as(orgA),
    );
    expect(sample(await scrape(), 'quarry_plan_stalled_plans')).toBe(2);
    await claim('overdue');
    await startedAgo(stepIds[1]!, '31 minutes');
    expect(sample(await scrape(), 'quarry_plan_stalled_plans')).toBe(3);
  });

  it('uses the threshold it is given, strictly: a step in progress for exactly the threshold does not stall its plan', async () => {
    // Stored stalled always counts; in-progress steps of 2–3 h only under a threshold below their age.
    expect(await countStalledPlans(database.app, { thresholdMs: 4 * 3_600_000, timeoutMs: 2_000 })).toBe(1);
    expect(await countStalledPlans(database.app, { thresholdMs: 2.5 * 3_600_000, timeoutMs: 2_000 })).toBe(2);
    expect(await countStalledPlans(database.app, { thresholdMs: 60_000, timeoutMs: 2_000 })).toBe(4); // 'recent' (5 min) too

    // At exactly the threshold a step is not yet overdue (now() is fixed within a transaction).
    const step = plans.get('recent')!.stepIds[0]!;
    const counts = await database.admin.transaction().execute(async (trx) => {
      const countAt = async (age: string) => {
        await sql`update plan.plan_steps set started_at = now() - ${age}::interval where id = ${step}`.execute(trx);
        const { rows } = await sql<{ n: string }>`select plan.count_stalled_plans(interval '30 minutes') as n`.execute(
          trx,
        );
        return Number(rows[0]!.n);
      };
      return [await countAt('30 minutes'), await countAt('30 minutes 0.001 seconds'), await countAt('5 minutes')];
    });
    expect(counts).toEqual([3, 4, 3]);
  });

  it('refuses a threshold or timeout that is not positive, in TypeScript and in SQL', async () => {
    await expect(countStalledPlans(database.app, { thresholdMs: 0, timeoutMs: 2_000 })).rejects.toThrow(RangeError);
    await expect(countStalledPlans(database.app, { thresholdMs: 60_000, timeoutMs: 0 })).rejects.toThrow(RangeError);
    await expect(sql`select plan.count_stalled_plans(interval '0')`.execute(database.app)).rejects.toThrow(
      /threshold must be a positive interval/,
    );
    await expect(sql`select plan.count_stalled_plans(null)`.execute(database.app)).rejects.toThrow(
      /threshold must be a positive interval, got null/,
    );
  });
});

describe('when the count cannot be taken', () => {
  it('gives up after the statement timeout, keeps the last value, counts the failure, and still answers the scrape', async () => {
    const metrics = createMetrics({ service: 'plan-engine-timeout', processMetrics: false });
    registerPlanMetrics(metrics, { db: database.app, stallThresholdMs: 30 * 60_000, logger, timeoutMs: 200 });
    expect(sample(await metrics.registry.metrics(), 'quarry_plan_stalled_plans')).toBe(3);

    // A migration holding an exclusive lock on the plans: the count waits, then is cancelled.
    const locker = new pg.Client({ connectionString: database.adminUrl });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table plan.research_plans in access exclusive mode');
      const began = Date.now();
      const text = await metrics.registry.metrics();
      expect(Date.now() - began).toBeLessThan(5_000);
      expect(sample(text, 'quarry_plan_stalled_plans')).toBe(3);
      expect(sample(text, 'quarry_plan_metrics_failures_total')).toBe(1);
    } finally {
      await locker.query('rollback');
      await locker.end();
    }
    const after = await metrics.registry.metrics();
    expect(sample(after, 'quarry_plan_stalled_plans')).toBe(3);
    expect(sample(after, 'quarry_plan_metrics_failures_total')).toBe(1);
  });

  it('counts a failure for a role that was never granted quarry_plan_metrics (EXECUTE is not PUBLIC)', async () => {
    const role = `plan_metrics_stranger_${randomUUID().slice(0, 8)}`;
    await sql`create role ${sql.id(role)} login password 'stranger-password'`.execute(database.admin);
    await sql`grant usage on schema plan to ${sql.id(role)}`.execute(database.admin);
    const url = new URL(database.adminUrl);
    url.username = role;
    url.password = 'stranger-password';
    const stranger = createDb({ connectionString: url.toString(), max: 1 });
    try {
      await expect(countStalledPlans(stranger, { thresholdMs: 60_000, timeoutMs: 2_000 })).rejects.toThrow(
        /permission denied for function count_stalled_plans/,
      );
      const metrics = createMetrics({ service: 'plan-engine-denied', processMetrics: false });
      registerPlanMetrics(metrics, { db: stranger, stallThresholdMs: 60_000, logger });
      const text = await metrics.registry.metrics();
      expect(sample(text, 'quarry_plan_stalled_plans')).toBe(0);
      expect(sample(text, 'quarry_plan_metrics_failures_total')).toBe(1);
    } finally {
      await stranger.destroy();
      await sql`drop owned by ${sql.id(role)}`.execute(database.admin);
      await sql`drop role ${sql.id(role)}`.execute(database.admin);
    }
  });
});

describe('configuration', () => {
  it('serves /metrics where HOST binds, on 9464 unless METRICS_PORT says otherwise, and refuses a bad port', () => {
    const base = { DATABASE_URL: 'postgres://app@db/quarry', QUARRY_IDENTITY_KEY: KEY };
    expect(loadPlanEngineConfig(base)).toMatchObject({ HOST: '127.0.0.1', METRICS_PORT: 9464, PORT: 50051 });
    expect(loadPlanEngineConfig({ ...base, HOST: '0.0.0.0', METRICS_PORT: '9100' })).toMatchObject({
      HOST: '0.0.0.0',
      METRICS_PORT: 9100,
    });
    expect(() => loadPlanEngineConfig({ ...base, METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
  });
});

describe('inside another process (quarry start)', () => {
  it('registers into the metrics it is given, which the host’s /metrics appends to its own', async () => {
    const metrics = createMetrics({ service: 'plan-engine', processMetrics: false });
    const hosted = await startPlanEngine({
      databaseUrl: database.appUrl,
      identityKey: KEY,
      logger,
      host: '127.0.0.1',
      port: 0,
      metrics,
    });
    try {
      expect(hosted.metricsPort).toBeUndefined(); // nothing listens for scrapes but the host
      const host = createMetrics({ service: 'gateway' });
      const { body } = await metricsText(host.registry, metrics.registry);
      expect(body).toContain('quarry_plan_stalled_plans{service="plan-engine"} 3');
      expect(body).toContain('quarry_plan_metrics_failures_total{service="plan-engine"} 0');
      expect(body.match(/^process_resident_memory_bytes\{/gm)).toHaveLength(1); // the host reports the process, once
    } finally {
      await hosted.close(1000);
    }
  });
});
