import { beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { sql } from '@quarry/db';
import { newRow, seedOrg, type SeededOrg } from './fixtures.js';
import { a, asA, database, useSeededDatabase } from './seeded-database.js';

// What the `plan` schema guarantees by itself, whatever the service code does: an append-only
// audit log, step orders that stay unique yet can be permuted, and consistent rows. (The
// notification of every plan change: plan-change-notifications.test.ts.)

useSeededDatabase();

describe('plan_audit_log is append-only', () => {
  const snapshot = () => database.admin.selectFrom('plan.plan_audit_log').selectAll().orderBy('id').execute();

  it('accepts new events of the eight types and refuses any other type', async () => {
    const types = [
      'plan_modified',
      'step_started',
      'step_completed',
      'step_failed',
      'plan_status_changed',
      'user_reviewed',
      'session_resumed',
      'feedback_recorded',
    ];
    await asA((trx) =>
      trx
        .insertInto('plan.plan_audit_log')
        .values(types.map((event_type) => ({ org_id: a.orgId, plan_id: a.planId, event_type, session_id: 's-1' })))
        .execute(),
    );
    await expect(
      asA((trx) =>
        trx
          .insertInto('plan.plan_audit_log')
          .values({ org_id: a.orgId, plan_id: a.planId, event_type: 'plan_deleted' })
          .execute(),
      ),
    ).rejects.toThrow(/violates check constraint/);
  });

  it.each([
    ['UPDATE', sql`update plan.plan_audit_log set details = '{"forged": true}'`],
    ['DELETE', sql`delete from plan.plan_audit_log`],
    ['DELETE', sql`delete from plan.plan_audit_log where false`],
  ])('refuses %s from the app role, even of its own rows or of no row at all', async (op, statement) => {
    const before = await snapshot();
    await expect(asA((trx) => statement.execute(trx))).rejects.toThrow(
      `plan.plan_audit_log is append-only: ${op} is not allowed`,
    );
    expect(await snapshot()).toEqual(before);
  });

  it('refuses UPDATE, DELETE and TRUNCATE from the admin (the owner) too', async () => {
    const before = await snapshot();
    expect(before.length).toBeGreaterThan(0);
    await expect(
      sql`update plan.plan_audit_log set event_type = 'step_failed'`.execute(database.admin),
    ).rejects.toThrow(/append-only: UPDATE/);
    await expect(
      sql`delete from plan.plan_audit_log where id = ${before[0]!.id}`.execute(database.admin),
    ).rejects.toThrow(/append-only: DELETE/);
    await expect(sql`truncate plan.plan_audit_log`.execute(database.admin)).rejects.toThrow(/append-only: TRUNCATE/);
    expect(await snapshot()).toEqual(before);
  });

  it('keeps the plan that has history: deleting it is refused', async () => {
    await expect(sql`delete from plan.research_plans where id = ${a.planId}`.execute(database.admin)).rejects.toThrow(
      /foreign key constraint/,
    );
  });
});

describe('step orders are unique per plan, and can be permuted', () => {
  const orders = async (planId: string) => {
    const rows = await database.admin
      .selectFrom('plan.plan_steps')
      .select(['id', 'step_order'])
      .where('plan_id', '=', planId)
      .orderBy('step_order')
      .execute();
    return rows.map((r) => r.id as string);
  };
  let plan: SeededOrg;
  beforeAll(async () => {
    plan = await seedOrg(database.admin, a.orgId);
  });

  it('refuses two steps with the same order in one plan', async () => {
    await expect(
      asA((trx) =>
        trx
          .insertInto('plan.plan_steps')
          .values({ ...newRow('plan_steps', plan), step_order: 2 })
          .execute(),
      ),
    ).rejects.toThrow(/plan_steps_plan_order_key/);
  });

  it('lets one statement swap two orders', async () => {
    const [s1, s2, s3] = await orders(plan.planId);
    await asA((trx) =>
      sql`update plan.plan_steps set step_order = case step_order when 1 then 2 else 1 end where plan_id = ${plan.planId} and step_order in (1, 2)`.execute(
        trx,
      ),
    );
    expect(await orders(plan.planId)).toEqual([s2, s1, s3]);
  });

  it('lets several statements swap orders in one transaction once the constraint is deferred', async () => {
    const [s1, s2, s3] = await orders(plan.planId);
    await asA(async (trx) => {
      await sql`set constraints plan.plan_steps_plan_order_key deferred`.execute(trx);
      await trx.updateTable('plan.plan_steps').set({ step_order: 3 }).where('id', '=', s1!).execute();
      await trx.updateTable('plan.plan_steps').set({ step_order: 1 }).where('id', '=', s3!).execute();
    });
    expect(await orders(plan.planId)).toEqual([s3, s2, s1]);
  });

  it('refuses the same swap without deferring, and a duplicate still left at commit', async () => {
    const before = await orders(plan.planId);
    await expect(
      asA((trx) => trx.updateTable('plan.plan_steps').set({ step_order: 3 }).where('id', '=', before[0]!).execute()),
    ).rejects.toThrow(/plan_steps_plan_order_key/);
    await expect(
      asA(async (trx) => {
        await sql`set constraints plan.plan_steps_plan_order_key deferred`.execute(trx);
        await trx.updateTable('plan.plan_steps').set({ step_order: 3 }).where('id', '=', before[0]!).execute();
      }),
    ).rejects.toThrow(/plan_steps_plan_order_key/);
    expect(await orders(plan.planId)).toEqual(before);
  });

  it('keeps branching conditions on the same steps through reorders, and protects a skip_to target from removal', async () => {
    const condition = await database.admin
      .selectFrom('plan.branching_conditions')
      .select(['step_id', 'target_step_id'])
      .where('plan_id', '=', plan.planId)
      .executeTakeFirstOrThrow();
    expect(condition).toEqual({ step_id: plan.stepIds[0], target_step_id: plan.stepIds[2] });
    await expect(
      asA((trx) => trx.deleteFrom('plan.plan_steps').where('id', '=', plan.stepIds[2]).execute()),
    ).rejects.toThrow(/branching_conditions.*foreign key|foreign key.*branching_conditions/);
    // A condition cannot point at a step of another plan, even of the same org.
    await expect(
      asA((trx) =>
        trx
          .insertInto('plan.branching_conditions')
          .values({ ...newRow('branching_conditions', plan), target_step_id: a.stepIds[2] })
          .execute(),
      ),
    ).rejects.toThrow(/foreign key constraint/);
  });
});

describe('row constraints', () => {
  const step = () => ({ ...newRow('plan_steps', a) });

  it.each([
    ['a confidence above 1', { confidence: 1.01 }],
    ['a negative confidence', { confidence: -0.1 }],
    ['an unknown step status', { status: 'done' }],
    ['an unknown step type', { step_type: 'browse' }],
    ['a result that is not an object', { result: JSON.stringify([1, 2]) }],
    ['a step order below 1', { step_order: 0 }],
  ])('refuses a step with %s', async (_, change) => {
    await expect(
      asA((trx) =>
        trx
          .insertInto('plan.plan_steps')
          .values({ ...step(), ...change })
          .execute(),
      ),
    ).rejects.toThrow(/violates check constraint/);
  });

  it('accepts confidence 0 and 1 and an object result', async () => {
    await asA((trx) =>
      trx
        .insertInto('plan.plan_steps')
        .values([
          { ...step(), confidence: 0, result: JSON.stringify({ sources: { count: 5 } }) },
          { ...step(), confidence: 1 },
        ])
        .execute(),
    );
  });

  it.each([
    ['skip_to without a target', { if_true_action: 'skip_to', target_step_id: null }],
    ['continue with a target', { if_true_action: 'continue' }],
    ['an unknown action', { if_true_action: 'jump' }],
  ])('refuses a branching condition with %s', async (_, change) => {
    const row = { ...newRow('branching_conditions', a), ...change };
    await expect(asA((trx) => trx.insertInto('plan.branching_conditions').values(row).execute())).rejects.toThrow(
      /violates check constraint/,
    );
  });

  it('allows one open review per step', async () => {
    const open = { ...newRow('user_reviews', a), step_id: a.stepIds[1], decision: null, decided_at: null };
    await asA((trx) => trx.insertInto('plan.user_reviews').values(open).execute());
    await expect(asA((trx) => trx.insertInto('plan.user_reviews').values(open).execute())).rejects.toThrow(
      /user_reviews_open_idx/,
    );
  });

  it('computes a skill execution duration once it has ended', async () => {
    const id = randomUUID();
    await asA((trx) =>
      trx
        .insertInto('plan.skill_executions')
        .values({ ...newRow('skill_executions', a), id, started_at: new Date('2026-01-01T00:00:00.000Z') })
        .execute(),
    );
    const duration = () =>
      database.admin
        .selectFrom('plan.skill_executions')
        .select('duration_ms')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    expect(await duration()).toEqual({ duration_ms: null });
    await asA((trx) =>
      trx
        .updateTable('plan.skill_executions')
        .set({ status: 'completed', completed_at: new Date('2026-01-01T00:01:01.500Z') })
        .where('id', '=', id)
        .execute(),
    );
    expect(Number((await duration()).duration_ms)).toBe(61_500);
    await expect(
      asA((trx) =>
        trx
          .insertInto('plan.skill_executions')
          .values({ ...newRow('skill_executions', a), skill_name: 'research_scan' })
          .execute(),
      ),
    ).rejects.toThrow(/violates check constraint/);
  });

  it('keeps one output-preferences row per org', async () => {
    await expect(
      asA((trx) => trx.insertInto('plan.output_preferences').values(newRow('output_preferences', a)).execute()),
    ).rejects.toThrow(/output_preferences_pkey/);
  });

  it('stores one answer per (org, plan, idempotency key)', async () => {
    const row = { ...newRow('step_result_submissions', a), idempotency_key: 'retry-me' };
    await asA((trx) => trx.insertInto('plan.step_result_submissions').values(row).execute());
    await expect(asA((trx) => trx.insertInto('plan.step_result_submissions').values(row).execute())).rejects.toThrow(
      /step_result_submissions_pkey/,
    );
  });
});
