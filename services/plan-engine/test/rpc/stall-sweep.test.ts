import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import { markStalledPlans } from '../../src/stall-sweep.js';
import { type PlanCaller, PlanStatus, sleep, stepsOf } from '../support/plan-api.js';
import { startTestPlanEngine, type TestPlanEngine } from '../support/plan-engine.js';
import { auditRows } from '../support/plan-rows.js';

// The stall sweep stores what get_plan_status reports: an executing plan with a step in progress
// for longer than the threshold becomes `stalled`, with a plan_status_changed audit row, and
// leaves `stalled` as soon as work resumes. The sweep runs as the app role (a member of
// quarry_plan_maintenance), across orgs, through plan.mark_stalled_plans.

let engine: TestPlanEngine;
const admin = () => engine.database.admin;

beforeAll(async () => {
  // A short interval, so the engine's own timer is seen marking a plan.
  engine = await startTestPlanEngine({ stallSweepIntervalMs: 200 });
});
afterAll(async () => {
  await engine?.close();
});

/** A plan of `org` with its first step claimed, that step started `minutesAgo` minutes ago. */
async function claimedPlan(org: PlanCaller, minutesAgo: number) {
  const { planId } = await org.call('createResearchPlan', {
    name: 'Slow',
    researchQuestion: 'Still going?',
    steps: stepsOf('search', 'analyze'),
  });
  const stepId = (await org.call('getNextStep', { planId })).step!.stepId;
  await sql`update plan.plan_steps set started_at = now() - ${minutesAgo} * interval '1 minute'
            where id = ${stepId}`.execute(admin());
  return { planId, stepId };
}

const storedStatus = async (planId: string) =>
  (
    await sql<{
      status: string;
    }>`select status from plan.research_plans where id = ${planId}`.execute(admin())
  ).rows[0]!.status;

describe('the stall sweep', () => {
  it('marks overdue executing plans of every org stalled, once, with an audit row, and leaves the rest', async () => {
    const a = engine.newOrg();
    const b = engine.newOrg();
    const overdueA = await claimedPlan(a, 45);
    const overdueB = await claimedPlan(b, 120);
    const fresh = await claimedPlan(a, 5);
    // The sweep of the engine's own timer may beat this call; either way each plan is marked once.
    await markStalledPlans(engine.database.app, { thresholdMs: 30 * 60_000, maxPlans: 1 });
    await markStalledPlans(engine.database.app, { thresholdMs: 30 * 60_000, maxPlans: 10 });

    expect(await storedStatus(overdueA.planId)).toBe('stalled');
    expect(await storedStatus(overdueB.planId)).toBe('stalled');
    expect(await storedStatus(fresh.planId)).toBe('executing');
    const marks = (await auditRows(admin(), { planId: overdueA.planId })).filter(
      (r) => r.eventType === 'plan_status_changed' && r.details.to === 'stalled',
    );
    expect(marks).toEqual([
      expect.objectContaining({
        stepId: null,
        details: { from: 'executing', to: 'stalled', cause: 'stall_detected', stalledStepIds: [overdueA.stepId] },
      }),
    ]);
    expect(await a.call('getPlanStatus', { planId: overdueA.planId })).toMatchObject({
      status: PlanStatus.PLAN_STATUS_STALLED,
      stalled: true,
    });
    // Another org's plan is marked too, and stays invisible to this org.
    expect((await b.call('listActivePlans', {})).plans).toEqual([
      expect.objectContaining({ planId: overdueB.planId, status: PlanStatus.PLAN_STATUS_STALLED }),
    ]);
  });

  it('runs on the engine’s own timer', async () => {
    const org = engine.newOrg();
    const { planId } = await claimedPlan(org, 31);
    for (let i = 0; i < 50 && (await storedStatus(planId)) !== 'stalled'; i++) await sleep(100);
    expect(await storedStatus(planId)).toBe('stalled');
  });

  it('lets the plan leave stalled when work resumes: a submitted result, or a claimed step', async () => {
    const org = engine.newOrg();
    const submitted = await claimedPlan(org, 60);
    const claimed = await claimedPlan(org, 60);
    await markStalledPlans(engine.database.app, { thresholdMs: 30 * 60_000, maxPlans: 10 });
    expect([await storedStatus(submitted.planId), await storedStatus(claimed.planId)]).toEqual(['stalled', 'stalled']);

    expect(
      await org.call('submitStepResult', { planId: submitted.planId, stepId: submitted.stepId, result: {} }),
    ).toEqual({ submitted: true, planStatus: PlanStatus.PLAN_STATUS_EXECUTING });
    expect(await storedStatus(submitted.planId)).toBe('executing');

    expect((await org.call('getNextStep', { planId: claimed.planId })).step).toBeDefined();
    expect(await storedStatus(claimed.planId)).toBe('executing');
    // The overdue step itself still counts: reads report the plan stalled until it moves.
    expect((await org.call('getPlanStatus', { planId: claimed.planId })).stalled).toBe(true);
  });

  it('can be run only by members of quarry_plan_maintenance, and refuses a bad threshold', async () => {
    await sql`create role quarry_not_maintenance`.execute(admin());
    try {
      await expect(
        admin()
          .transaction()
          .execute(async (trx) => {
            await sql`set local role quarry_not_maintenance`.execute(trx);
            await sql`select plan.mark_stalled_plans(interval '1 minute', 10)`.execute(trx);
          }),
      ).rejects.toThrow(/permission denied/);
    } finally {
      await sql`drop role quarry_not_maintenance`.execute(admin());
    }
    await expect(markStalledPlans(engine.database.app, { thresholdMs: 0, maxPlans: 10 })).rejects.toThrow(
      /thresholdMs must be a positive number/,
    );
    await expect(sql`select plan.mark_stalled_plans(interval '0', 10)`.execute(engine.database.app)).rejects.toThrow(
      /threshold must be a positive interval/,
    );
  });
});
