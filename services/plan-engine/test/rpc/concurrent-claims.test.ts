import { beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import { answersOf, countBy, NextStepStatus, PlanStatus, type Response, StepType } from '../support/plan-api.js';
import {
  AGENTS,
  agents,
  createPlan,
  db,
  NEXT_STEP,
  owner,
  planStatus,
  SLOW,
  stepRows,
  useAgents,
} from '../support/many-agents.js';
import { auditRows } from '../support/plan-rows.js';

// Many agents pull work from one plan at the same moment: get_next_step must hand every step out
// exactly once, and the concurrent results must leave the plan consistent: the answers, the rows
// and the audit trail all tell the same story.

const STEPS = 30;

useAgents();

describe(`${AGENTS} agents × get_next_step on one ${STEPS}-step plan`, () => {
  let planId: string;
  let stepIds: string[];
  let claims: { session: string; answer: Response<'getNextStep'> }[];

  beforeAll(async () => {
    ({ planId, stepIds } = await createPlan(STEPS, 'Crowded plan'));
    const sessions = agents.map((_, agent) => `agent-session-${agent}`);
    const outcomes = await Promise.all(
      agents.map((agent, i) => agent.attempt('getNextStep', { planId, sessionId: sessions[i] }, SLOW)),
    );
    claims = answersOf(outcomes).map((answer, i) => ({ session: sessions[i]!, answer }));
  }, 60_000);

  it('hands every step out exactly once, and the surplus agents get no_pending_steps', () => {
    const handedOut = claims.filter((c) => c.answer.status === NEXT_STEP);
    const surplus = claims.filter((c) => c.answer.status !== NEXT_STEP);
    expect(handedOut).toHaveLength(STEPS);
    expect(surplus.map((c) => c.answer.status)).toEqual(
      Array(AGENTS - STEPS).fill(NextStepStatus.NEXT_STEP_STATUS_NO_PENDING_STEPS),
    );
    expect(surplus.filter((c) => c.answer.step !== undefined)).toEqual([]);

    const given = handedOut.map((c) => c.answer.step!.stepId);
    expect(new Set(given).size).toBe(STEPS);
    expect([...given].sort()).toEqual([...stepIds].sort());
    expect(handedOut.map((c) => c.answer.step!.stepOrder).sort((a, b) => a - b)).toEqual(
      Array.from({ length: STEPS }, (_, i) => i + 1),
    );
    // Each answer describes the step it names.
    for (const { answer } of handedOut) {
      const order = stepIds.indexOf(answer.step!.stepId) + 1;
      expect(answer.step).toEqual({
        stepId: stepIds[order - 1],
        stepOrder: order,
        stepType: StepType.STEP_TYPE_SEARCH,
        instructions: `Step ${order}`,
      });
    }
  });

  it('leaves every step in_progress in the database and the plan executing', async () => {
    const rows = await stepRows(planId);
    expect(rows).toHaveLength(STEPS);
    expect(rows.every((r) => r.status === 'in_progress' && r.started_at !== null)).toBe(true);
    expect(await planStatus(planId)).toBe('executing');
  });

  it('records exactly one step_started per step, for the session that received it, and one status change', async () => {
    const audit = await auditRows(db(), { planId });
    const started = audit.filter((r) => r.eventType === 'step_started');
    expect(countBy(started, (r) => r.stepId!)).toEqual(Object.fromEntries(stepIds.map((id) => [id, 1])));
    const receivedBy = new Map(
      claims.filter((c) => c.answer.status === NEXT_STEP).map((c) => [c.answer.step!.stepId, c.session]),
    );
    for (const row of started) {
      expect(row.sessionId).toBe(receivedBy.get(row.stepId!));
      expect(row.details).toEqual({ stepOrder: stepIds.indexOf(row.stepId!) + 1, autoAdvanced: false });
    }
    expect(audit.filter((r) => r.eventType === 'plan_status_changed').map((r) => r.details)).toEqual([
      { from: 'planning', to: 'executing', cause: 'claim_next_step' },
    ]);
    expect(countBy(audit, (r) => r.eventType)).toEqual({
      plan_modified: 1,
      step_started: STEPS,
      plan_status_changed: 1,
    });
  });

  it('accepts concurrent results for all the steps and completes the plan exactly once', async () => {
    const holders = claims.filter((c) => c.answer.status === NEXT_STEP);
    const answers = answersOf(
      await Promise.all(
        holders.map(({ session, answer }, i) =>
          agents[i]!.attempt(
            'submitStepResult',
            {
              planId,
              stepId: answer.step!.stepId,
              result: { by: session, stepId: answer.step!.stepId },
              confidence: 0.8,
              sessionId: session,
            },
            SLOW,
          ),
        ),
      ),
    );
    // Only the last commit sees every step done.
    expect(countBy(answers, (a) => `${a.submitted}:${PlanStatus[a.planStatus]}`)).toEqual({
      'true:PLAN_STATUS_EXECUTING': STEPS - 1,
      'true:PLAN_STATUS_COMPLETED': 1,
    });

    const rows = await stepRows(planId);
    const sessionOf = new Map(holders.map((c) => [c.answer.step!.stepId, c.session]));
    for (const row of rows) {
      expect(row.status).toBe('completed');
      // Each result landed on its own step, none on a neighbour.
      expect(row.result).toEqual({ by: sessionOf.get(row.id), stepId: row.id });
    }
    expect(await planStatus(planId)).toBe('completed');

    const audit = await auditRows(db(), { planId });
    const completed = audit.filter((r) => r.eventType === 'step_completed');
    expect(countBy(completed, (r) => r.stepId!)).toEqual(Object.fromEntries(stepIds.map((id) => [id, 1])));
    expect(
      completed.every(
        (r) => r.sessionId === sessionOf.get(r.stepId!) && r.details.via === 'result' && r.details.confidence === 0.8,
      ),
    ).toBe(true);
    expect(audit.filter((r) => r.eventType === 'plan_status_changed').map((r) => r.details)).toEqual([
      { from: 'planning', to: 'executing', cause: 'claim_next_step' },
      { from: 'executing', to: 'completed', cause: 'submit_step_result' },
    ]);
    // No step was started a second time by an auto-advancing submit.
    expect(audit.filter((r) => r.eventType === 'step_started')).toHaveLength(STEPS);

    const status = await owner.call('getPlanStatus', { planId });
    expect(status).toMatchObject({
      status: PlanStatus.PLAN_STATUS_COMPLETED,
      progress: 100,
      totalSteps: STEPS,
      pendingSteps: [],
    });
    expect(status.completedSteps).toHaveLength(STEPS);
    const after = await Promise.all(agents.slice(0, 5).map((agent) => agent.call('getNextStep', { planId })));
    expect(after.map((a) => a.status)).toEqual(Array(5).fill(NextStepStatus.NEXT_STEP_STATUS_PLAN_COMPLETE));
  }, 60_000);

  // Times are read under the plan lock, so recorded times follow commit order even when
  // calls queue for the lock (audit occurred_at, step times and the plan's updated_at).
  it('keeps time in commit order: the audit log never goes back in time and the plan’s updated_at is its latest change', async () => {
    const { rows } = await sql<{
      backwards: string;
      plan_updated: Date;
      latest_step_change: Date;
      completed_before_started: string;
    }>`
      select
        (select count(*) from (
           select occurred_at < lag(occurred_at) over (order by id) as back from plan.plan_audit_log where plan_id = ${planId}::uuid
         ) x where back)::text as backwards,
        (select updated_at from plan.research_plans where id = ${planId}::uuid) as plan_updated,
        (select max(updated_at) from plan.plan_steps where plan_id = ${planId}::uuid) as latest_step_change,
        (select count(*) from plan.plan_steps where plan_id = ${planId}::uuid and completed_at < started_at)::text as completed_before_started`.execute(
      db(),
    );
    const [times] = rows;
    expect(times!.completed_before_started).toBe('0');
    expect(times!.backwards).toBe('0');
    expect(times!.plan_updated.getTime()).toBeGreaterThanOrEqual(times!.latest_step_change.getTime());
  });
});
