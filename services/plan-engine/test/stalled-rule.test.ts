import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { type AnyDb, sql } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { type PlanStatus, reportedPlanStatus, type StepStatus } from '../src/core/index.js';
import { planSchemas } from '../src/index.js';
import { loadPlan, type Trx } from '../src/store/plans.js';

// "Stalled" is stated three times: in TypeScript (core/status.ts, reportedPlanStatus, which every
// rpc reports with) and twice in SQL (plan.count_stalled_plans, which the stalled-plans gauge
// counts with across orgs, and plan.mark_stalled_plans, the sweep that stores stalls). Over a
// table of plans, all must give the same answer, and the expected one.

const THRESHOLD = '30 minutes';
const THRESHOLD_MS = 30 * 60_000;

interface Case {
  name: string;
  status: PlanStatus;
  /** Each step's status and how long ago it started (null: never). */
  steps: [StepStatus, string | null][];
  /** Stalled under the 30-minute threshold. */
  stalled: boolean;
}

const cases: Case[] = [
  {
    name: 'executing, a step in progress for 2 h',
    status: 'executing',
    steps: [['in_progress', '2 hours']],
    stalled: true,
  },
  {
    name: 'executing, a step in progress for 5 min',
    status: 'executing',
    steps: [['in_progress', '5 minutes']],
    stalled: false,
  },
  {
    name: 'executing, in progress for exactly the threshold',
    status: 'executing',
    steps: [['in_progress', THRESHOLD]],
    stalled: false,
  },
  {
    name: 'executing, 1 ms over the threshold',
    status: 'executing',
    steps: [['in_progress', '30 minutes 0.001 seconds']],
    stalled: true,
  },
  {
    name: 'executing, 1 ms under the threshold',
    status: 'executing',
    steps: [['in_progress', '29 minutes 59.999 seconds']],
    stalled: false,
  },
  {
    name: 'executing, in progress without a start time',
    status: 'executing',
    steps: [['in_progress', null]],
    stalled: false,
  },
  {
    name: 'executing, several steps, one of them overdue',
    status: 'executing',
    steps: [
      ['completed', '3 hours'],
      ['in_progress', '10 minutes'],
      ['in_progress', '45 minutes'],
      ['pending', null],
    ],
    stalled: true,
  },
  {
    name: 'executing, several steps in progress, none overdue',
    status: 'executing',
    steps: [
      ['completed', '2 hours'],
      ['in_progress', '10 minutes'],
      ['in_progress', '29 minutes'],
      ['pending', null],
    ],
    stalled: false,
  },
  {
    name: 'executing, old steps that are finished or waiting, none in progress',
    status: 'executing',
    steps: [
      ['completed', '2 hours'],
      ['skipped', '2 hours'],
      ['failed', '2 hours'],
      ['pending', '2 hours'],
    ],
    stalled: false,
  },
  {
    name: 'stored stalled, a step in progress for 1 min',
    status: 'stalled',
    steps: [['in_progress', '1 minute']],
    stalled: true,
  },
  { name: 'stored stalled, nothing in progress', status: 'stalled', steps: [['pending', null]], stalled: true },
  {
    name: 'awaiting_review, another step in progress for 2 h',
    status: 'awaiting_review',
    steps: [
      ['in_progress', '2 hours'],
      ['awaiting_input', '2 hours'],
    ],
    stalled: false,
  },
  {
    name: 'awaiting_review, the reviewed step waiting for 2 h',
    status: 'awaiting_review',
    steps: [['awaiting_input', '2 hours']],
    stalled: false,
  },
  {
    name: 'planning, nothing started',
    status: 'planning',
    steps: [
      ['pending', null],
      ['pending', null],
    ],
    stalled: false,
  },
  {
    name: 'planning, a step in progress for 2 h',
    status: 'planning',
    steps: [['in_progress', '2 hours']],
    stalled: false,
  },
  {
    name: 'completed, a step left in progress for 2 h',
    status: 'completed',
    steps: [['in_progress', '2 hours']],
    stalled: false,
  },
  {
    name: 'failed, a step left in progress for 2 h',
    status: 'failed',
    steps: [
      ['in_progress', '2 hours'],
      ['failed', '3 hours'],
    ],
    stalled: false,
  },
  { name: 'executing, no steps at all', status: 'executing', steps: [], stalled: false },
];

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...planSchemas] });
});
afterAll(async () => {
  await database?.drop();
});

/** Writes the case's plan (as the admin, in `trx`) in an org of its own; its steps start relative to now(). */
async function insertCase(trx: AnyDb, c: Case): Promise<string> {
  const orgId = randomUUID();
  const planId = randomUUID();
  await sql`insert into plan.research_plans (id, org_id, name, research_question, status)
            values (${planId}, ${orgId}, ${c.name}, 'Stalled?', ${c.status})`.execute(trx);
  for (const [index, [status, age]] of c.steps.entries()) {
    await sql`insert into plan.plan_steps (org_id, plan_id, step_order, step_type, instructions, status, started_at)
              values (${orgId}, ${planId}, ${index + 1}, 'search', ${`Step ${index + 1}`}, ${status},
                      now() - ${age}::interval)`.execute(trx);
  }
  return planId;
}

/**
 * Both answers for the plans of `cases`, in one transaction that is rolled back (so the cases do
 * not see each other): the SQL count, and the plans the core reports as stalled at the same now().
 */
async function answers(
  list: Case[],
  thresholdMs: number,
): Promise<{ sqlCount: number; coreStalled: string[]; sweptStalled: string[] }> {
  let outcome: { sqlCount: number; coreStalled: string[]; sweptStalled: string[] } | undefined;
  const rollback = new Error('rollback');
  await database.admin
    .transaction()
    .execute(async (trx) => {
      const planIds = [];
      for (const c of list) planIds.push(await insertCase(trx, c));
      const { rows } = await sql<{ n: string; now: Date }>`
        select plan.count_stalled_plans(${thresholdMs} * interval '1 millisecond') as n, now() as now`.execute(trx);
      const coreStalled: string[] = [];
      for (const [i, planId] of planIds.entries()) {
        const { plan, snapshot } = (await loadPlan(trx as unknown as Trx, planId, false))!;
        const reported = reportedPlanStatus(plan.status as PlanStatus, snapshot.steps, rows[0]!.now, thresholdMs);
        if (reported.status === 'stalled') coreStalled.push(list[i]!.name);
      }
      // The sweep at the same now(): what it leaves stored as stalled is what the core reports.
      await sql`select plan.mark_stalled_plans(${thresholdMs} * interval '1 millisecond', 1000)`.execute(trx);
      const sweptStalled: string[] = [];
      for (const [i, planId] of planIds.entries()) {
        const stored = await sql<{ status: string }>`
          select status from plan.research_plans where id = ${planId}`.execute(trx);
        if (stored.rows[0]!.status === 'stalled') sweptStalled.push(list[i]!.name);
      }
      outcome = { sqlCount: Number(rows[0]!.n), coreStalled, sweptStalled };
      throw rollback;
    })
    .catch((error: unknown) => {
      if (error !== rollback) throw error;
    });
  return outcome!;
}

describe('the stall rule in core/status.ts and in plan.count_stalled_plans', () => {
  it.each(cases)('agree on "$name" (stalled: $stalled)', async (c) => {
    const { sqlCount, coreStalled, sweptStalled } = await answers([c], THRESHOLD_MS);
    expect({ sql: sqlCount === 1, core: coreStalled.length === 1, sweep: sweptStalled.length === 1 }).toEqual({
      sql: c.stalled,
      core: c.stalled,
      sweep: c.stalled,
    });
  });

  it('agree on all the plans at once, in many orgs, under other thresholds too', async () => {
    const expected = cases.filter((c) => c.stalled).map((c) => c.name);
    const all = await answers(cases, THRESHOLD_MS);
    expect(all).toEqual({ sqlCount: expected.length, coreStalled: expected, sweptStalled: expected });
    for (const thresholdMs of [60_000, 50 * 60_000, 150 * 60_000, 4 * 3_600_000]) {
      const other = await answers(cases, thresholdMs);
      expect(other.sqlCount).toBe(other.coreStalled.length);
      expect(other.sweptStalled).toEqual(other.coreStalled);
    }
  });
});
