import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BranchAction, expectRefusal, MISSING, PlanStatus, type Request, sleep, stepsOf } from '../support/plan-api.js';
import { startTestPlanEngine, type TestPlanEngine } from '../support/plan-engine.js';

// list_active_plans: an org's unfinished plans, most recently updated first, page by page, with
// each plan's progress; cursors it did not issue are refused.

let engine: TestPlanEngine;

beforeAll(async () => {
  engine = await startTestPlanEngine();
});
afterAll(async () => {
  await engine?.close();
});

describe('list_active_plans', () => {
  it('pages through the unfinished plans, most recently updated first', async () => {
    const org = engine.newOrg();
    const create = async (
      name: string,
      steps: Parameters<typeof stepsOf>,
      extra: Partial<Request<'createResearchPlan'>> = {},
    ) => {
      const { planId } = await org.call('createResearchPlan', {
        name,
        researchQuestion: `${name}?`,
        steps: stepsOf(...steps),
        ...extra,
      });
      await sleep(5); // distinct updated_at, so the order below is the order of events
      return planId;
    };
    const finish = async (planId: string, confidence?: number) =>
      org.call('submitStepResult', {
        planId,
        stepId: (await org.call('getNextStep', { planId })).step!.stepId,
        result: {},
        confidence,
      });
    const p1 = await create('P1', ['search', 'analyze']);
    const p2 = await create('P2', ['search']);
    const p3 = await create('P3', ['search', 'analyze'], {
      branchingConditions: [
        { afterStepOrder: 1, conditionExpression: 'confidence < 0.5', ifTrueAction: BranchAction.BRANCH_ACTION_FAIL },
      ],
    });
    const p4 = await create('P4', ['search']);
    const p5 = await create('P5', ['search', 'analyze', 'synthesize', 'critique']);

    await finish(p2); // completed
    await finish(p3, 0.1); // failed
    await sleep(5);
    await finish(p1); // p1 touched last

    const first = await org.call('listActivePlans', { limit: 2 });
    expect(first.activePlans).toBe(3);
    expect(first.plans.map((p) => p.name)).toEqual(['P1', 'P5']);
    expect(first.plans[0]).toEqual({
      planId: p1,
      name: 'P1',
      researchQuestion: 'P1?',
      status: PlanStatus.PLAN_STATUS_EXECUTING,
      progress: 50,
      totalSteps: 2,
      completedSteps: 1,
      updatedAt: expect.any(Date),
    });
    expect(first.plans[1]).toMatchObject({
      planId: p5,
      status: PlanStatus.PLAN_STATUS_PLANNING,
      progress: 0,
      totalSteps: 4,
      completedSteps: 0,
    });
    expect(first.nextCursor).toEqual(expect.any(String));

    const second = await org.call('listActivePlans', { limit: 2, cursor: first.nextCursor });
    expect(second).toMatchObject({ activePlans: 3, plans: [{ planId: p4, name: 'P4' }] });
    expect(second.nextCursor).toBeUndefined();

    const all = await org.call('listActivePlans', {});
    expect(all.plans.map((p) => p.planId)).toEqual([p1, p5, p4]);
    expect(all.nextCursor).toBeUndefined();

    // Another org's plans never show.
    const other = engine.newOrg();
    await other.call('createResearchPlan', { name: 'Mine', researchQuestion: 'Mine?', steps: stepsOf('search') });
    const mine = await other.call('listActivePlans', {});
    expect(mine.plans.map((p) => p.planId)).not.toContain(p1);
    expect(mine.activePlans).toBe(1);
  });

  it('returns every active plan when no page is asked for, more than a page holds', async () => {
    const org = engine.newOrg();
    for (let i = 0; i < 25; i += 1) {
      await org.call('createResearchPlan', { name: `P${i}`, researchQuestion: 'Q?', steps: stepsOf('search') });
    }
    const all = await org.call('listActivePlans', {});
    expect({ count: all.activePlans, shown: all.plans.length, next: all.nextCursor }).toEqual({
      count: 25,
      shown: 25,
      next: undefined,
    });
    // Asking for a page still pages; a cursor without a limit gives pages of 20.
    const page = await org.call('listActivePlans', { limit: 3 });
    expect(page.plans).toHaveLength(3);
    const rest = await org.call('listActivePlans', { cursor: page.nextCursor });
    expect({ shown: rest.plans.length, more: Boolean(rest.nextCursor) }).toEqual({ shown: 20, more: true });
    expect(new Set([...page.plans, ...rest.plans].map((p) => p.planId)).size).toBe(23);
  });

  it('reports a plan with a step in progress for longer than the threshold as stalled', async () => {
    const org = engine.newOrg();
    const { planId } = await org.call('createResearchPlan', {
      name: 'Slow',
      researchQuestion: 'Still going?',
      steps: stepsOf('search', 'analyze'),
    });
    await org.call('getNextStep', { planId });
    const [listed] = (await org.call('listActivePlans', {})).plans;
    expect(listed).toMatchObject({ planId, status: PlanStatus.PLAN_STATUS_EXECUTING });
    await engine.database.admin
      .updateTable('plan.plan_steps')
      .set({ started_at: new Date(Date.now() - 31 * 60_000) })
      .where('plan_id', '=', planId)
      .where('status', '=', 'in_progress')
      .execute();
    const [stalled] = (await org.call('listActivePlans', {})).plans;
    expect(stalled).toMatchObject({ planId, status: PlanStatus.PLAN_STATUS_STALLED, progress: 0, totalSteps: 2 });
  });

  it('refuses a cursor it did not issue', async () => {
    const api = engine.newOrg();
    expectRefusal(
      await api.refusal('listActivePlans', { cursor: 'not-a-cursor' }),
      'INVALID_CURSOR',
      /`cursor` is not a cursor returned by list_active_plans/,
    );
    const forged = Buffer.from(JSON.stringify({ u: 'yesterday', i: MISSING })).toString('base64url');
    expectRefusal(await api.refusal('listActivePlans', { cursor: forged }), 'INVALID_CURSOR');
    const notUuid = Buffer.from(JSON.stringify({ u: new Date().toISOString(), i: 'plan-1' })).toString('base64url');
    expectRefusal(await api.refusal('listActivePlans', { cursor: notUuid }), 'INVALID_CURSOR');
  });
});
