import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { planV1 } from '@quarry/contracts';
import { sql } from '@quarry/db';
import {
  AuditEventType,
  FeedbackType,
  PlanStatus,
  SkillExecutionStatus,
  UserSatisfaction,
} from '../support/plan-api.js';
import { api, engine, events, tools, useAuditedPlanEngine } from '../support/audit.js';
import { auditRows, planSnapshot } from '../support/plan-rows.js';

// plan.plan_audit_log for the rest: resuming a plan, feedback and skill runs; reads append
// nothing; and the log cannot be rewritten, not even by the database owner, and is written in
// the same transaction as the change it records.

useAuditedPlanEngine();
const db = () => engine.database.admin;

describe('get_research_context, submit_research_feedback, log_skill_execution', () => {
  it('get_research_context with a sessionId writes one session_resumed row', async () => {
    const { planId } = await tools.newPlan(1);
    const { answer, rows } = await tools.auditedOk('getResearchContext', { planId, sessionId: 's-resume' });
    expect(events(rows)).toEqual([
      { type: 'session_resumed', planId, stepId: null, sessionId: 's-resume', details: {} },
    ]);
    // The answer already shows it.
    expect(answer.recentAuditEvents).toContainEqual(
      expect.objectContaining({
        eventId: Number(rows[0]!.id),
        eventType: AuditEventType.AUDIT_EVENT_TYPE_SESSION_RESUMED,
        sessionId: 's-resume',
      }),
    );
  });

  it('submit_research_feedback writes feedback_recorded with the stored feedback, or nothing when refused', async () => {
    const { planId } = await tools.newPlan(1);
    const { answer, rows } = await tools.auditedOk('submitResearchFeedback', {
      planId,
      feedbackType: FeedbackType.FEEDBACK_TYPE_CLOSING,
      userSatisfaction: UserSatisfaction.USER_SATISFACTION_POSITIVE,
      sessionId: 's-feedback',
    });
    expect(events(rows)).toEqual([
      {
        type: 'feedback_recorded',
        planId,
        stepId: null,
        sessionId: 's-feedback',
        details: { feedbackId: answer.feedbackId, feedbackType: 'closing' },
      },
    ]);
    await tools.expectSameTransaction(rows, 'research_feedback', answer.feedbackId);
    // The gateway's tool codec only lets the enum's names through; a number the enum does not
    // have, sent straight over gRPC, is refused too, and nothing is kept.
    await tools.expectRefusedWithoutTrace(
      'submitResearchFeedback',
      { planId, feedbackType: FeedbackType.FEEDBACK_TYPE_CLOSING, userSatisfaction: 9 as planV1.UserSatisfaction },
      'INVALID_ARGUMENT',
    );
    await tools.expectRefusedWithoutTrace(
      'submitResearchFeedback',
      { planId: randomUUID(), feedbackType: FeedbackType.FEEDBACK_TYPE_INITIAL },
      'PLAN_NOT_FOUND',
    );
  });

  it('log_skill_execution is not a plan event: it writes no audit row, even when it names a plan', async () => {
    const { planId } = await tools.newPlan(1);
    const started = await tools.auditedOk('logSkillExecution', {
      skillName: 'research',
      status: SkillExecutionStatus.SKILL_EXECUTION_STATUS_STARTED,
      planId,
      sessionId: 's-skill',
    });
    expect(started.rows).toEqual([]);
    const finished = await tools.audited('logSkillExecution', {
      executionId: started.answer.executionId,
      skillName: 'research',
      status: SkillExecutionStatus.SKILL_EXECUTION_STATUS_COMPLETED,
    });
    expect(finished.outcome.ok).toBe(true);
    expect(finished.rows).toEqual([]);
  });
});

describe('reads', () => {
  it('get_plan_status, list_active_plans, get_step_context and get_research_context without a session write nothing at all', async () => {
    const { planId, steps } = await tools.newPlan(3);
    await api.call('getNextStep', { planId });
    await api.call('submitStepResult', { planId, stepId: steps[0], result: { summary: 'first' } });
    await api.call('getNextStep', { planId });
    // Step 2 has been in progress for an hour: the plan reads as stalled, and reading says so without writing it.
    await sql`update plan.plan_steps set started_at = now() - interval '1 hour' where id = ${steps[1]}::uuid`.execute(
      db(),
    );
    const before = await planSnapshot(db());
    expect(await api.call('getPlanStatus', { planId })).toMatchObject({
      status: PlanStatus.PLAN_STATUS_STALLED,
      stalled: true,
    });
    const outcomes = await Promise.all([
      api.attempt('getPlanStatus', { planId }),
      api.attempt('getPlanStatus', { planId, waitSeconds: 1 }),
      api.attempt('listActivePlans', {}),
      api.attempt('listActivePlans', { limit: 1 }),
      api.attempt('getStepContext', { planId, stepId: steps[1] }),
      api.attempt('getStepContext', { planId, stepId: steps[2], priorStepIds: [steps[0]!] }),
      api.attempt('getResearchContext', { planId }),
    ]);
    expect(outcomes.filter((o) => !o.ok)).toEqual([]);
    expect(await planSnapshot(db())).toEqual(before);
  });
});

describe('the log itself', () => {
  it('refuses UPDATE, DELETE and TRUNCATE, even for the admin connection and even when no row matches', async () => {
    const { planId } = await tools.newPlan(1);
    const before = await auditRows(db(), { planId });
    expect(before.length).toBeGreaterThan(0);
    for (const statement of [
      sql`update plan.plan_audit_log set details = '{"forged": true}' where plan_id = ${planId}::uuid`,
      sql`update plan.plan_audit_log set event_type = 'plan_modified' where false`,
      sql`delete from plan.plan_audit_log where plan_id = ${planId}::uuid`,
      sql`delete from plan.plan_audit_log where false`,
      sql`truncate plan.plan_audit_log`,
    ]) {
      await expect(statement.execute(db())).rejects.toThrow(/plan\.plan_audit_log is append-only/);
    }
    expect(await auditRows(db(), { planId })).toEqual(before);
  });

  it('refuses them for the services’ app role inside its own tenant too', async () => {
    const { planId } = await tools.newPlan(1);
    for (const statement of [
      sql`update plan.plan_audit_log set session_id = 'forged' where plan_id = ${planId}::uuid`,
      sql`delete from plan.plan_audit_log where plan_id = ${planId}::uuid`,
    ]) {
      await expect(
        engine.database.app.transaction().execute(async (trx) => {
          await sql`select set_config('app.org_id', ${api.orgId}, true)`.execute(trx);
          await statement.execute(trx);
        }),
      ).rejects.toThrow(/append-only|permission denied/);
    }
    expect((await auditRows(db(), { planId })).every((r) => r.sessionId === null)).toBe(true);
  });

  it('is written in the same transaction as the change: when the audit row cannot be written, the change is rolled back', async () => {
    const { planId, steps } = await tools.newPlan(2);
    await api.call('getNextStep', { planId });
    // Make the database refuse this one step_completed row, as a failing disk or constraint would.
    await sql`
      create function plan.test_refuse_audit() returns trigger language plpgsql as $$
      begin
        if new.event_type = 'step_completed' and new.plan_id = ${sql.lit(planId)}::uuid then raise exception 'audit write refused by test'; end if;
        return new;
      end $$;
      create trigger test_refuse_audit before insert on plan.plan_audit_log for each row execute function plan.test_refuse_audit();
    `.execute(db());
    try {
      const before = await planSnapshot(db());
      const error = await api.refusal('submitStepResult', {
        planId,
        stepId: steps[0],
        result: { summary: 'lost' },
        idempotencyKey: 'k-rollback',
      });
      expect(error).toMatchObject({ code: 'INTERNAL', message: 'Internal error' });
      // The step update, the plan's updated_at and the idempotency record were all rolled back.
      expect(await planSnapshot(db())).toEqual(before);
    } finally {
      await sql`drop trigger test_refuse_audit on plan.plan_audit_log; drop function plan.test_refuse_audit();`.execute(
        db(),
      );
    }
    const retried = await tools.auditedOk('submitStepResult', {
      planId,
      stepId: steps[0],
      result: { summary: 'kept' },
      idempotencyKey: 'k-rollback',
    });
    expect(retried.answer).toEqual({ submitted: true, planStatus: PlanStatus.PLAN_STATUS_EXECUTING });
    expect(events(retried.rows).map((e) => e.type)).toEqual(['step_completed']);
  });
});
