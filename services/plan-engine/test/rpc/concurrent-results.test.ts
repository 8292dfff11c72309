import { describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import { answersOf, countBy, NextStepStatus, type Outcome, PlanStatus } from '../support/plan-api.js';
import {
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

// Concurrent writes to one plan: claims racing results submitted straight onto pending steps, and
// many results for one step, with and without an idempotency key. Each step starts and completes
// exactly once, and the rows and the audit trail agree with the answers.

useAgents();

describe('claims racing auto-advancing submits on one plan', () => {
  it('starts and completes every step exactly once, whatever the interleaving', async () => {
    const steps = 20;
    const { planId, stepIds } = await createPlan(steps, 'Claims and submits');
    // 20 agents submit results straight onto pending steps (auto-advance), one step each,
    // while 20 others ask for the next step.
    const [submitOutcomes, claimOutcomes] = await Promise.all([
      Promise.all(
        stepIds.map((stepId, i) =>
          agents[i]!.attempt(
            'submitStepResult',
            { planId, stepId, result: { stepId }, sessionId: `submitter-${i}` },
            SLOW,
          ),
        ),
      ),
      Promise.all(
        agents
          .slice(steps, steps * 2)
          .map((agent, i) => agent.attempt('getNextStep', { planId, sessionId: `claimer-${i}` }, SLOW)),
      ),
    ]);
    // A step someone claimed is still open to a result (pending and in_progress both accept one).
    answersOf(submitOutcomes);
    const claimAnswers = answersOf(claimOutcomes);
    const claimed = claimAnswers.filter((a) => a.status === NEXT_STEP).map((a) => a.step!.stepId);
    expect(new Set(claimed).size).toBe(claimed.length);
    for (const answer of claimAnswers.filter((a) => a.status !== NEXT_STEP)) {
      expect([
        NextStepStatus.NEXT_STEP_STATUS_NO_PENDING_STEPS,
        NextStepStatus.NEXT_STEP_STATUS_PLAN_COMPLETE,
      ]).toContain(answer.status);
    }

    const rows = await stepRows(planId);
    expect(rows.map((r) => [r.id, r.status, r.result])).toEqual(stepIds.map((id) => [id, 'completed', { stepId: id }]));
    expect(await planStatus(planId)).toBe('completed');

    const audit = await auditRows(db(), { planId });
    const started = audit.filter((r) => r.eventType === 'step_started');
    expect(countBy(started, (r) => r.stepId!)).toEqual(Object.fromEntries(stepIds.map((id) => [id, 1])));
    expect(
      countBy(
        audit.filter((r) => r.eventType === 'step_completed'),
        (r) => r.stepId!,
      ),
    ).toEqual(Object.fromEntries(stepIds.map((id) => [id, 1])));
    // A step was auto-advanced exactly when nobody had claimed it first.
    for (const row of started) expect(row.details.autoAdvanced).toBe(!claimed.includes(row.stepId!));
    expect(
      audit.filter((r) => r.eventType === 'plan_status_changed').map((r) => `${r.details.from}→${r.details.to}`),
    ).toEqual(['planning→executing', 'executing→completed']);
  }, 60_000);
});

describe('one step, many concurrent results', () => {
  it('accepts exactly one result without an idempotency key and refuses the others by the step state', async () => {
    const { planId, stepIds } = await createPlan(3, 'Double submit');
    const stepId = stepIds[0]!;
    await owner.call('getNextStep', { planId });
    const outcomes: Outcome<'submitStepResult'>[] = await Promise.all(
      agents
        .slice(0, 10)
        .map((agent, i) => agent.attempt('submitStepResult', { planId, stepId, result: { writer: i } }, SLOW)),
    );
    const accepted = outcomes.filter((o) => o.ok);
    expect(accepted).toEqual([{ ok: true, value: { submitted: true, planStatus: PlanStatus.PLAN_STATUS_EXECUTING } }]);
    const refused = outcomes.filter((o) => !o.ok);
    expect(refused).toHaveLength(9);
    for (const outcome of refused)
      expect(outcome.error).toMatchObject({
        code: 'STEP_STATE_CONFLICT',
        message: 'Step 1 is completed; only pending or in_progress steps accept a result',
      });

    const writer = outcomes.indexOf(accepted[0]!);
    const [row] = await stepRows(planId);
    expect(row).toMatchObject({ status: 'completed', result: { writer } });
    expect((await auditRows(db(), { planId })).filter((r) => r.eventType === 'step_completed')).toHaveLength(1);
  }, 60_000);

  it('gives every retry with the same idempotency key the first answer and records the result once', async () => {
    const { planId, stepIds } = await createPlan(3, 'Idempotent submit');
    const stepId = stepIds[0]!;
    const outcomes = await Promise.all(
      agents
        .slice(0, 10)
        .map((agent, i) =>
          agent.attempt('submitStepResult', { planId, stepId, result: { writer: i }, idempotencyKey: 'retry-1' }, SLOW),
        ),
    );
    expect(outcomes).toEqual(
      Array(10).fill({ ok: true, value: { submitted: true, planStatus: PlanStatus.PLAN_STATUS_EXECUTING } }),
    );

    const [row] = await stepRows(planId);
    expect(row!.status).toBe('completed');
    const audit = await auditRows(db(), { planId });
    expect(audit.filter((r) => r.eventType === 'step_completed')).toHaveLength(1);
    expect(audit.filter((r) => r.eventType === 'step_started')).toHaveLength(1);
    const { rows } = await sql<{
      n: string;
    }>`select count(*)::text as n from plan.step_result_submissions where plan_id = ${planId}::uuid`.execute(db());
    expect(rows[0]!.n).toBe('1');
  }, 60_000);
});
