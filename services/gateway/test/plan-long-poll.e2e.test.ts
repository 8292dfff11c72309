import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { type Kysely, sql } from 'kysely';
import { connectClient, startTestGateway } from './harness.js';
import { type CallTool, sleep, stepsOf, toolsOf, type ToolAnswer } from './plan-workflow-helpers.js';

// Issue 3: get_plan_status with waitSeconds long-polls. One client waits, another changes the
// plan; the waiter answers right away with the new state, and while waiting it holds no
// database connection (the plan engine's pool is smaller than the number of waiters below).

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let admin: Kysely<unknown>;
const clients: Client[] = [];
let a: { call: CallTool; ok: CallTool };
let b: { call: CallTool; ok: CallTool };

beforeAll(async () => {
  gateway = await startTestGateway();
  admin = gateway.database.admin as Kysely<unknown>;
  const [legacy, modern] = await Promise.all([
    connectClient(gateway.url, gateway.token, 'legacy'),
    connectClient(gateway.url, gateway.token, 'modern'),
  ]);
  clients.push(legacy, modern);
  a = toolsOf(legacy);
  b = toolsOf(modern);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await gateway?.close();
});

async function newPlan() {
  const { planId } = (
    await b.ok('create_research_plan', {
      name: 'Watched',
      researchQuestion: 'Who finishes first?',
      steps: stepsOf('search', 'synthesize'),
    })
  ).data;
  const step = (await b.ok('get_next_step', { planId })).data.step.stepId as string;
  return { planId, step };
}

/** The plan engine's connections that are doing something: running a query or inside a transaction. */
async function busyPlanEngineConnections(): Promise<{ state: string; query: string }[]> {
  const { rows } = await sql<{ state: string; query: string }>`
    select state, query from pg_stat_activity
    where datname = ${gateway.database.name} and usename = ${gateway.database.appRole}
      and application_name like 'quarry-plan-engine%' and state <> 'idle'
  `.execute(admin);
  return rows;
}

/**
 * Once the waiters are in (their first reads take a moment to arrive), the plan engine must go
 * quiet and stay quiet for `quietMs`: a waiter holding a connection or a transaction while it
 * waits would keep one busy for the whole wait, and this fails after 5 s.
 */
async function expectNoConnectionHeld(quietMs = 500) {
  await sleep(500);
  const deadline = performance.now() + 5000;
  let quietSince = performance.now();
  for (;;) {
    const busy = await busyPlanEngineConnections();
    if (busy.length > 0) quietSince = performance.now();
    if (performance.now() - quietSince >= quietMs) return;
    if (performance.now() > deadline) expect(busy).toEqual([]);
    await sleep(25);
  }
}

/** Starts a call and resolves with its answer and the moment it arrived. */
function timed(promise: Promise<ToolAnswer>) {
  return promise.then((answer) => ({ answer, at: performance.now() }));
}

describe('get_plan_status with waitSeconds', () => {
  it('returns as soon as another client changes the plan, with the new state', async () => {
    const { planId, step } = await newPlan();
    const started = performance.now();
    const waiting = timed(a.ok('get_plan_status', { planId, waitSeconds: 20 }));

    await expectNoConnectionHeld();
    await b.ok('submit_step_result', { planId, stepId: step, result: { sources: { count: 5 } } });
    const submitted = performance.now();

    const { answer, at } = await waiting;
    expect(at - submitted).toBeLessThan(2000);
    expect(at - started).toBeLessThan(8000);
    expect(answer.data).toMatchObject({
      planId,
      status: 'executing',
      progress: 50,
      completedSteps: [{ stepId: step, status: 'completed' }],
    });
  });

  it('wakes every waiter of the plan, more waiters than the plan engine has connections, none holding one', async () => {
    const { planId, step } = await newPlan();
    const waiters = Array.from({ length: 12 }, () => timed(a.ok('get_plan_status', { planId, waitSeconds: 20 })));

    // Sampled while all of them wait: nobody is running a query or sitting in a transaction.
    await expectNoConnectionHeld();
    await b.ok('modify_plan', {
      planId,
      action: 'update_step_instructions',
      stepId: step,
      updatedInstructions: 'Search wider.',
    });
    const changed = performance.now();

    const answers = await Promise.all(waiters);
    for (const { answer, at } of answers) {
      expect(at - changed).toBeLessThan(2000);
      expect(answer.data.currentStep).toMatchObject({ stepId: step, instructions: 'Search wider.' });
    }
  });

  it('returns the unchanged status when the wait ends without a change', async () => {
    const { planId } = await newPlan();
    const before = await a.ok('get_plan_status', { planId });
    const started = performance.now();
    const after = await a.ok('get_plan_status', { planId, waitSeconds: 1 });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(4000);
    expect(after.data).toEqual(before.data);
  });

  it('is not woken by a change to another plan', async () => {
    const watched = await newPlan();
    const other = await newPlan();
    const started = performance.now();
    const waiting = timed(a.ok('get_plan_status', { planId: watched.planId, waitSeconds: 1 }));
    await sleep(200);
    await b.ok('submit_step_result', { planId: other.planId, stepId: other.step, result: {} });
    const { at } = await waiting;
    expect(at - started).toBeGreaterThanOrEqual(950);
  });

  it('answers at once for a finished plan, and at once without waitSeconds', async () => {
    const { planId } = (
      await b.ok('create_research_plan', { name: 'Done', researchQuestion: 'Done?', steps: stepsOf('search') })
    ).data;
    await b.ok('submit_step_result', {
      planId,
      stepId: (await b.ok('get_next_step', { planId })).data.step.stepId,
      result: {},
    });
    let started = performance.now();
    expect((await a.ok('get_plan_status', { planId, waitSeconds: 20 })).data.status).toBe('completed');
    expect(performance.now() - started).toBeLessThan(2000);
    started = performance.now();
    await a.ok('get_plan_status', { planId, waitSeconds: 0 });
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
