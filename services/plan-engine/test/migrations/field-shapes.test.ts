import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { migrate, sql } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { planSchemas } from '../../src/migrations/index.js';

// The migration that gave user_satisfaction and step_execution_report the public contract's
// shapes must keep what was stored before it meaningful: a database migrated up to the one
// before, with rows in the old shapes, then migrated to the latest.

const LAST_BEFORE = '2026_11_22_0400_count_stalled_plans';

let database: TestDatabase;
const orgId = randomUUID();
const planId = randomUUID();

beforeAll(async () => {
  const all = planSchemas[0]!.migrations;
  const names = Object.keys(all).sort();
  const before = Object.fromEntries(names.slice(0, names.indexOf(LAST_BEFORE) + 1).map((n) => [n, all[n]!]));
  database = await createTestDatabase({ schemas: [{ schema: 'plan', migrations: before }] });
  await sql`insert into plan.research_plans (id, org_id, name, research_question) values (${planId}, ${orgId}, 'P', 'Q?')`.execute(
    database.admin,
  );
  for (const score of [1, 2, 3, 4, 5, null]) {
    await sql`insert into plan.research_feedback (org_id, plan_id, feedback_type, user_satisfaction, user_feedback_summary)
              values (${orgId}, ${planId}, 'closing', ${score}, ${`score ${score}`})`.execute(database.admin);
  }
  await sql`insert into plan.plan_steps (org_id, plan_id, step_order, step_type, instructions, step_execution_report)
            values (${orgId}, ${planId}, 1, 'search', 'A', 'Searched two databases.'),
                   (${orgId}, ${planId}, 2, 'search', 'B', null)`.execute(database.admin);
  await migrate({ db: database.admin, schema: 'plan', migrations: all });
});
afterAll(async () => {
  await database?.drop();
});

describe('the migration to the contract’s field shapes', () => {
  it('turns 1–5 scores into negative / neutral / positive and keeps unset ones unset', async () => {
    const { rows } = await sql<{ user_feedback_summary: string; user_satisfaction: string | null }>`
      select user_feedback_summary, user_satisfaction from plan.research_feedback order by user_feedback_summary`.execute(
      database.admin,
    );
    expect(rows.map((r) => [r.user_feedback_summary, r.user_satisfaction])).toEqual([
      ['score 1', 'negative'],
      ['score 2', 'negative'],
      ['score 3', 'neutral'],
      ['score 4', 'positive'],
      ['score 5', 'positive'],
      ['score null', null],
    ]);
    await expect(
      sql`insert into plan.research_feedback (org_id, plan_id, feedback_type, user_satisfaction)
          values (${orgId}, ${planId}, 'initial', '4')`.execute(database.admin),
    ).rejects.toThrow(/research_feedback_user_satisfaction_check/);
  });

  it('keeps a text execution report whole inside an object, and refuses a report that is not an object', async () => {
    const { rows } = await sql<{ step_order: number; step_execution_report: unknown }>`
      select step_order, step_execution_report from plan.plan_steps order by step_order`.execute(database.admin);
    expect(rows).toEqual([
      { step_order: 1, step_execution_report: { report: 'Searched two databases.' } },
      { step_order: 2, step_execution_report: null },
    ]);
    await expect(
      sql`update plan.plan_steps set step_execution_report = '"text"'::jsonb where step_order = 2`.execute(
        database.admin,
      ),
    ).rejects.toThrow(/plan_steps_step_execution_report_object/);
  });
});
