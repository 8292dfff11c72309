import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import {
  callerOf,
  ModifyPlanAction,
  type PlanCaller,
  PlanStatus,
  type Response,
  sleep,
  StepStatus,
  stepsOf,
} from '../support/plan-api.js';
import { startTestPlanEngine, type TestPlanEngine } from '../support/plan-engine.js';

// get_plan_status with waitSeconds long-polls. One caller waits, another changes the plan; the
// waiter answers right away with the new state, and while waiting it holds no database
// connection (the plan engine's pool is smaller than the number of waiters below).

let engine: TestPlanEngine;
/** The waiter and the writer: two members of one org. */
let a: PlanCaller;
let b: PlanCaller;
/** A long-poll outlives the default call deadline. */
const LONG = { deadlineMs: 30_000 };

beforeAll(async () => {
  engine = await startTestPlanEngine();
  a = engine.newOrg();
  b = callerOf(engine.client, a.orgId);
});
afterAll(async () => {
  await engine?.close();
});

async function newPlan() {
  const { planId } = await b.call('createResearchPlan', {
    name: 'Watched',
    researchQuestion: 'Who finishes first?',
    steps: stepsOf('search', 'synthesize'),
  });
  const step = (await b.call('getNextStep', { planId })).step!.stepId;
  return { planId, step };
}

/** The plan engine's connections that are doing something: running a query or inside a transaction. */
async function busyPlanEngineConnections(): Promise<{ state: string; query: string }[]> {
  const { rows } = await sql<{ state: string; query: string }>`
    select state, query from pg_stat_activity
    where datname = ${engine.database.name} and usename = ${engine.database.appRole}
      and application_name like 'quarry-plan-engine%' and state <> 'idle'
  `.execute(engine.database.admin);
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
function timed(promise: Promise<Response<'getPlanStatus'>>) {
  return promise.then((answer) => ({ answer, at: performance.now() }));
}

describe('get_plan_status with waitSeconds', () => {
  it('returns as soon as another caller changes the plan, with the new state', async () => {
    const { planId, step } = await newPlan();
    const started = performance.now();
    const waiting = timed(a.call('getPlanStatus', { planId, waitSeconds: 20 }, LONG));

    await expectNoConnectionHeld();
    await b.call('submitStepResult', { planId, stepId: step, result: { sources: { count: 5 } } });
    const submitted = performance.now();

    const { answer, at } = await waiting;
    expect(at - submitted).toBeLessThan(2000);
    expect(at - started).toBeLessThan(8000);
    expect(answer).toMatchObject({
      planId,
      status: PlanStatus.PLAN_STATUS_EXECUTING,
      progress: 50,
      completedSteps: [{ stepId: step, status: StepStatus.STEP_STATUS_COMPLETED }],
    });
  });

  it('wakes every waiter of the plan, more waiters than the plan engine has connections, none holding one', async () => {
    const { planId, step } = await newPlan();
    const waiters = Array.from({ length: 12 }, () => timed(a.call('getPlanStatus', { planId, waitSeconds: 20 }, LONG)));

    // Sampled while all of them wait: nobody is running a query or sitting in a transaction.
    await expectNoConnectionHeld();
    await b.call('modifyPlan', {
      planId,
      action: ModifyPlanAction.MODIFY_PLAN_ACTION_UPDATE_STEP_INSTRUCTIONS,
      stepId: step,
      updatedInstructions: 'Search wider.',
    });
    const changed = performance.now();

    const answers = await Promise.all(waiters);
    for (const { answer, at } of answers) {
      expect(at - changed).toBeLessThan(2000);
      expect(answer.currentStep).toMatchObject({ stepId: step, instructions: 'Search wider.' });
    }
  });

  it('returns the unchanged status when the wait ends without a change', async () => {
    const { planId } = await newPlan();
    const before = await a.call('getPlanStatus', { planId });
    const started = performance.now();
    const after = await a.call('getPlanStatus', { planId, waitSeconds: 1 }, LONG);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(4000);
    expect(after).toEqual(before);
  });

  it('is not woken by a change to another plan', async () => {
    const watched = await newPlan();
    const other = await newPlan();
    const started = performance.now();
    const waiting = timed(a.call('getPlanStatus', { planId: watched.planId, waitSeconds: 1 }, LONG));
    await sleep(200);
    await b.call('submitStepResult', { planId: other.planId, stepId: other.step, result: {} });
    const { at } = await waiting;
    expect(at - started).toBeGreaterThanOrEqual(950);
  });

  it('is not ended by a notification that changes nothing the caller sees', async () => {
    const { planId } = await newPlan();
    const before = await a.call('getPlanStatus', { planId });
    const started = performance.now();
    const waiting = timed(a.call('getPlanStatus', { planId, waitSeconds: 1 }, LONG));
    await sleep(200);
    // What a late-heard notification of an earlier change looks like to the waiter.
    await sql`select pg_notify('quarry_plan_changed', ${`${a.orgId}:${planId}`.toLowerCase()})`.execute(
      engine.database.admin,
    );
    const { answer, at } = await waiting;
    expect(at - started).toBeGreaterThanOrEqual(950);
    expect(answer).toEqual(before);
  });

  it('answers at once for a finished plan, and at once without waitSeconds', async () => {
    const { planId } = await b.call('createResearchPlan', {
      name: 'Done',
      researchQuestion: 'Done?',
      steps: stepsOf('search'),
    });
    await b.call('submitStepResult', {
      planId,
      stepId: (await b.call('getNextStep', { planId })).step!.stepId,
      result: {},
    });
    let started = performance.now();
    expect((await a.call('getPlanStatus', { planId, waitSeconds: 20 }, LONG)).status).toBe(
      PlanStatus.PLAN_STATUS_COMPLETED,
    );
    expect(performance.now() - started).toBeLessThan(2000);
    started = performance.now();
    await a.call('getPlanStatus', { planId, waitSeconds: 0 });
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
