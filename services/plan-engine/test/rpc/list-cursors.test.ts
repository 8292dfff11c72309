import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import { expectRefusal, type PlanCaller, PlanStatus, stepsOf } from '../support/plan-api.js';
import { startTestPlanEngine, type TestPlanEngine } from '../support/plan-engine.js';

// The cursors of list_active_plans and list_plans: sealed keyset positions, valid only for the
// rpc, the org and the filters they were returned for; the unsigned cursors of earlier versions
// are refused; plans updated within one millisecond are neither skipped nor repeated.

let engine: TestPlanEngine;

beforeAll(async () => {
  engine = await startTestPlanEngine();
});
afterAll(async () => {
  await engine?.close();
});

const newPlans = async (org: PlanCaller, count: number) => {
  const ids: string[] = [];
  for (let i = 0; i < count; i++)
    ids.push(
      (await org.call('createResearchPlan', { name: `P${i}`, researchQuestion: 'Q?', steps: stepsOf('search') }))
        .planId,
    );
  return ids;
};

describe('list cursors', () => {
  it('hold for the rpc and the filters they were returned for, and nothing else', async () => {
    const org = engine.newOrg();
    await newPlans(org, 3);
    const plans = await org.call('listPlans', { includeArchived: true, limit: 1 });
    const active = await org.call('listActivePlans', { limit: 1 });
    expect(
      (await org.call('listPlans', { includeArchived: true, limit: 1, cursor: plans.nextCursor })).plans,
    ).toHaveLength(1);
    expect((await org.call('listActivePlans', { limit: 1, cursor: active.nextCursor })).plans).toHaveLength(1);

    // Archived plans left out, words, a status, a time, and list_active_plans' cursor.
    for (const request of [
      { cursor: plans.nextCursor },
      { includeArchived: true, query: 'P', cursor: plans.nextCursor },
      { includeArchived: true, status: PlanStatus.PLAN_STATUS_PLANNING, cursor: plans.nextCursor },
      { includeArchived: true, updatedSince: new Date(0), cursor: plans.nextCursor },
      { includeArchived: true, cursor: active.nextCursor },
    ])
      expectRefusal(await org.refusal('listPlans', request), 'INVALID_CURSOR', /list_plans/);
    expectRefusal(await org.refusal('listActivePlans', { cursor: plans.nextCursor }), 'INVALID_CURSOR');
  });

  it('are refused in another org', async () => {
    const [orgA, orgB] = [engine.newOrg(), engine.newOrg()];
    await newPlans(orgA, 2);
    await newPlans(orgB, 2);
    const plans = await orgA.call('listPlans', { limit: 1 });
    const active = await orgA.call('listActivePlans', { limit: 1 });
    expectRefusal(await orgB.refusal('listPlans', { limit: 1, cursor: plans.nextCursor }), 'INVALID_CURSOR');
    expectRefusal(await orgB.refusal('listActivePlans', { limit: 1, cursor: active.nextCursor }), 'INVALID_CURSOR');
  });

  it('of earlier versions (unsigned base64url JSON of a real plan) are refused, not read', async () => {
    const org = engine.newOrg();
    const [first] = await newPlans(org, 2);
    const listed = (await org.call('listPlans', {})).plans.find((p) => p.planId === first)!;
    const unsigned = Buffer.from(JSON.stringify({ u: listed.updatedAt!.toISOString(), i: first })).toString(
      'base64url',
    );
    expectRefusal(await org.refusal('listActivePlans', { cursor: unsigned }), 'INVALID_CURSOR');
    expectRefusal(await org.refusal('listPlans', { cursor: unsigned }), 'INVALID_CURSOR');
  });

  it('page plans updated within one millisecond one by one, none skipped or repeated', async () => {
    const org = engine.newOrg();
    const ids = await newPlans(org, 3);
    // The stall sweep stamps updated_at with now(): microseconds a JavaScript Date does not hold.
    for (const [i, id] of ids.entries())
      await sql`update plan.research_plans set updated_at = ${`2030-01-01 00:00:00.000${i + 1}01+00`}::timestamptz where id = ${id}::uuid`.execute(
        engine.database.admin,
      );
    const expected = [...ids].reverse();
    for (const rpc of ['listActivePlans', 'listPlans'] as const) {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await org.call(rpc, { limit: 1, ...(cursor ? { cursor } : {}) });
        seen.push(...page.plans.map((p) => p.planId));
        cursor = page.nextCursor;
      } while (cursor && seen.length < 10);
      expect({ rpc, seen }).toEqual({ rpc, seen: expected });
    }
  });
});
