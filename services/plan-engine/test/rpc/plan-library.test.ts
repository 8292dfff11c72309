import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  expectRefusal,
  ModifyPlanAction,
  NextStepStatus,
  type PlanCaller,
  PlanStatus,
  sleep,
  stepsOf,
} from '../support/plan-api.js';
import { startTestPlanEngine, type TestPlanEngine } from '../support/plan-engine.js';
import { auditRows } from '../support/plan-rows.js';

// Browsing and controlling plans: list_plans over every status (archived ones on request),
// archive_plan / unarchive_plan (a flag, not a status), and cancel_plan (a terminal status, after
// which nothing more is handed out or accepted). Retries of each write answer the same.

let engine: TestPlanEngine;
const admin = () => engine.database.admin;

beforeAll(async () => {
  engine = await startTestPlanEngine();
});
afterAll(async () => {
  await engine?.close();
});

async function newPlan(org: PlanCaller, name: string, question = `${name}?`) {
  const { planId } = await org.call('createResearchPlan', {
    name,
    researchQuestion: question,
    steps: stepsOf('search', 'analyze'),
  });
  await sleep(5); // distinct updated_at
  return planId;
}

describe('list_plans', () => {
  it('lists plans in every status, filtered by status, words and time, page by page, archived ones on request', async () => {
    const org = engine.newOrg();
    const started = new Date();
    const done = await newPlan(org, 'Done', 'Is sodium cheaper?');
    for (let i = 0; i < 2; i++) {
      const step = (await org.call('getNextStep', { planId: done })).step!;
      await org.call('submitStepResult', { planId: done, stepId: step.stepId, result: {} });
    }
    const cancelled = await newPlan(org, 'Dropped', 'Graphene 100% yield?');
    await org.call('cancelPlan', { planId: cancelled, reason: 'The user changed topic.' });
    const archived = await newPlan(org, 'Old sodium study');
    await org.call('archivePlan', { planId: archived });
    const open = await newPlan(org, 'Open', 'What about lithium?');

    const all = await org.call('listPlans', {});
    expect(all.plans.map((p) => [p.name, p.status, p.archived])).toEqual([
      ['Open', PlanStatus.PLAN_STATUS_PLANNING, false],
      ['Dropped', PlanStatus.PLAN_STATUS_CANCELLED, false],
      ['Done', PlanStatus.PLAN_STATUS_COMPLETED, false],
    ]);
    expect(all.plans[2]).toMatchObject({ planId: done, progress: 100, totalSteps: 2, completedSteps: 2 });
    expect(all.nextCursor).toBeUndefined();

    const withArchived = await org.call('listPlans', { includeArchived: true });
    expect(withArchived.plans.map((p) => p.planId)).toEqual([open, archived, cancelled, done]);
    expect(withArchived.plans[1]).toMatchObject({ archived: true, status: PlanStatus.PLAN_STATUS_PLANNING });

    const byStatus = await org.call('listPlans', { status: PlanStatus.PLAN_STATUS_CANCELLED });
    expect(byStatus.plans.map((p) => p.planId)).toEqual([cancelled]);
    const byWords = await org.call('listPlans', { query: 'SODIUM', includeArchived: true });
    expect(byWords.plans.map((p) => p.planId)).toEqual([archived, done]);
    // LIKE's wildcards in the words are taken literally.
    expect((await org.call('listPlans', { query: '100%' })).plans.map((p) => p.planId)).toEqual([cancelled]);
    expect((await org.call('listPlans', { query: '_' })).plans).toEqual([]);
    expect((await org.call('listPlans', { updatedSince: new Date(Date.now() + 60_000) })).plans).toEqual([]);
    expect((await org.call('listPlans', { updatedSince: started })).plans).toHaveLength(3);

    const first = await org.call('listPlans', { includeArchived: true, limit: 3 });
    const second = await org.call('listPlans', { includeArchived: true, limit: 3, cursor: first.nextCursor });
    expect([...first.plans, ...second.plans].map((p) => p.planId)).toEqual([open, archived, cancelled, done]);
    expect(second.nextCursor).toBeUndefined();
    expectRefusal(await org.refusal('listPlans', { cursor: 'nope' }), 'INVALID_CURSOR', /list_plans/);

    // Another org sees none of it.
    expect((await engine.newOrg().call('listPlans', { includeArchived: true })).plans).toEqual([]);
  });
});

describe('archive_plan and unarchive_plan', () => {
  it('hide a plan from the active lists, keep its status and everything readable, and answer the same when repeated', async () => {
    const org = engine.newOrg();
    const planId = await newPlan(org, 'To archive');
    await org.call('getNextStep', { planId });
    expect(await org.call('getPlanStatus', { planId })).toMatchObject({ archived: false });

    const answer = await org.call('archivePlan', { planId, sessionId: 'arch' });
    expect(answer).toEqual({ planId, archived: true, status: PlanStatus.PLAN_STATUS_EXECUTING });
    expect(await org.call('archivePlan', { planId })).toEqual(answer);
    expect((await org.call('listActivePlans', {})).plans).toEqual([]);
    expect((await org.call('listActivePlans', {})).activePlans).toBe(0);
    expect((await org.call('listPlans', {})).plans).toEqual([]);
    // Still readable and workable: archived is a flag, not a status.
    expect(await org.call('getPlanStatus', { planId })).toMatchObject({
      status: PlanStatus.PLAN_STATUS_EXECUTING,
      archived: true,
    });
    expect((await org.call('getResearchContext', { planId })).plan).toMatchObject({ id: planId });

    expect(await org.call('unarchivePlan', { planId })).toEqual({
      planId,
      archived: false,
      status: PlanStatus.PLAN_STATUS_EXECUTING,
    });
    expect(await org.call('unarchivePlan', { planId })).toMatchObject({ archived: false });
    expect(await org.call('getPlanStatus', { planId })).toMatchObject({ archived: false });
    expect((await org.call('listActivePlans', {})).plans.map((p) => p.planId)).toEqual([planId]);

    const marks = (await auditRows(admin(), { planId })).filter((r) => r.eventType === 'plan_modified').slice(1);
    expect(marks.map((r) => [r.details.action, r.sessionId])).toEqual([
      ['archive', 'arch'],
      ['unarchive', null],
    ]);
  });

  it('answers an unknown plan with not-found', async () => {
    const org = engine.newOrg();
    expectRefusal(await org.refusal('archivePlan', { planId: randomUUID() }), 'PLAN_NOT_FOUND');
    expectRefusal(await org.refusal('unarchivePlan', { planId: randomUUID() }), 'PLAN_NOT_FOUND');
  });
});

describe('cancel_plan', () => {
  it('ends the plan for good, audited with the reason; a retry gets the same answer', async () => {
    const org = engine.newOrg();
    const planId = await newPlan(org, 'To cancel');
    const stepId = (await org.call('getNextStep', { planId })).step!.stepId;

    const answer = await org.call('cancelPlan', { planId, reason: 'The user no longer needs it.', sessionId: 'c-1' });
    expect(answer).toEqual({
      planId,
      status: PlanStatus.PLAN_STATUS_CANCELLED,
      previousStatus: PlanStatus.PLAN_STATUS_EXECUTING,
      cancelledAt: expect.any(Date),
    });
    await sleep(5);
    expect(await org.call('cancelPlan', { planId, reason: 'Again.' })).toEqual(answer);
    const cancels = (await auditRows(admin(), { planId })).filter((r) => r.details.to === 'cancelled');
    expect(cancels).toEqual([
      expect.objectContaining({
        eventType: 'plan_status_changed',
        sessionId: 'c-1',
        details: { from: 'executing', to: 'cancelled', cause: 'cancel_plan', reason: 'The user no longer needs it.' },
      }),
    ]);

    // Nothing more is handed out, and writes are refused naming the status.
    expect(await org.call('getNextStep', { planId })).toMatchObject({
      status: NextStepStatus.NEXT_STEP_STATUS_PLAN_FAILED,
    });
    const before = (await auditRows(admin(), { planId })).length;
    expectRefusal(
      await org.refusal('submitStepResult', { planId, stepId, result: {} }),
      'PLAN_STATE_CONFLICT',
      /Plan is cancelled/,
    );
    expectRefusal(
      await org.refusal('modifyPlan', {
        planId,
        action: ModifyPlanAction.MODIFY_PLAN_ACTION_FAIL_STEP,
        stepId,
      }),
      'PLAN_STATE_CONFLICT',
      /Plan is cancelled/,
    );
    expectRefusal(
      await org.refusal('requestUserReview', { planId, stepId, summary: 'Look' }),
      'PLAN_STATE_CONFLICT',
      /Plan is cancelled/,
    );
    expect(await auditRows(admin(), { planId })).toHaveLength(before);
    // Still readable; no longer active.
    expect(await org.call('getPlanStatus', { planId })).toMatchObject({
      status: PlanStatus.PLAN_STATUS_CANCELLED,
      stalled: false,
    });
    expect((await org.call('listActivePlans', {})).plans).toEqual([]);
  });

  it('refuses a finished plan and an unknown one', async () => {
    const org = engine.newOrg();
    const planId = await newPlan(org, 'Finished');
    for (let i = 0; i < 2; i++) {
      const step = (await org.call('getNextStep', { planId })).step!;
      await org.call('submitStepResult', { planId, stepId: step.stepId, result: {} });
    }
    expectRefusal(
      await org.refusal('cancelPlan', { planId, reason: 'Too late' }),
      'PLAN_STATE_CONFLICT',
      /Plan is completed; cancel_plan needs a plan that is/,
    );
    expectRefusal(await org.refusal('cancelPlan', { planId: randomUUID(), reason: 'x' }), 'PLAN_NOT_FOUND');
  });
});
