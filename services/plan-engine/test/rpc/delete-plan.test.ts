import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import type { QuarryError } from '@quarry/grpc';
import {
  FeedbackType,
  ModifyPlanAction,
  type PlanCaller,
  ReviewDecision,
  SkillExecutionStatus,
  stepsOf,
} from '../support/plan-api.js';
import { startTestPlanEngine, type TestPlanEngine } from '../support/plan-engine.js';

// delete_plan at the plan engine's gRPC boundary on real PostgreSQL: every row of the plan is
// gone (steps, conditions, reviews, feedback, submit keys, audit rows), skill executions keep
// no link to it, a content-free tombstone remains, and afterwards the id — like a random one or
// another org's — answers PLAN_NOT_FOUND with the same message on every tool that takes it.
// (The artifact store's side: services/artifact-store/test/deletions.test.ts.)

let engine: TestPlanEngine;
let api: PlanCaller;
const admin = () => engine.database.admin;

beforeAll(async () => {
  engine = await startTestPlanEngine();
  api = engine.newOrg();
});
afterAll(async () => {
  await engine?.close();
});

/** Rows of the plan in every table of the plan schema, counted past row-level security. */
async function rowsOf(planId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of [
    'research_plans',
    'plan_steps',
    'branching_conditions',
    'user_reviews',
    'research_feedback',
    'step_result_submissions',
    'plan_audit_log',
    'skill_executions',
  ]) {
    const column = table === 'research_plans' ? 'id' : 'plan_id';
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from ${sql.table(`plan.${table}`)} where ${sql.ref(column)} = ${planId}`.execute(
      admin(),
    );
    counts[table] = rows[0]!.n;
  }
  return counts;
}

/** A plan with something in every table: a result, a review with its decision, feedback, a skill execution. */
async function busyPlan(caller: PlanCaller) {
  const execution = await caller.call('logSkillExecution', {
    skillName: 'research',
    status: SkillExecutionStatus.SKILL_EXECUTION_STATUS_STARTED,
    sessionId: 'del-1',
  });
  const { planId } = await caller.call('createResearchPlan', {
    name: 'Private matter',
    researchQuestion: 'Something the user wants forgotten?',
    planDesignRationale: 'A confidential rationale.',
    steps: stepsOf('search', 'analyze'),
    branchingConditions: [{ afterStepOrder: 1, conditionExpression: 'confidence < 0.1', ifTrueAction: 2 }],
    sessionId: 'del-1',
  });
  const first = (await caller.call('getNextStep', { planId })).step!.stepId;
  await caller.call('submitStepResult', {
    planId,
    stepId: first,
    result: { found: 'confidential findings' },
    confidence: 0.9,
    idempotencyKey: 'k1',
  });
  const second = (await caller.call('getNextStep', { planId })).step!.stepId;
  await caller.call('requestUserReview', { planId, stepId: second, summary: 'Secret summary.', questions: ['Q?'] });
  await caller.call('submitUserDecision', {
    planId,
    stepId: second,
    decision: ReviewDecision.REVIEW_DECISION_APPROVE,
    feedback: 'Private feedback.',
  });
  await caller.call('submitResearchFeedback', {
    planId,
    feedbackType: FeedbackType.FEEDBACK_TYPE_CLOSING,
    userFeedbackSummary: 'Private summary.',
  });
  // Read once, so the status cache holds the plan when it is deleted.
  await caller.call('getPlanStatus', { planId });
  return { planId, stepIds: [first, second], executionId: execution.executionId };
}

const notFound = async (caller: PlanCaller, method: Parameters<PlanCaller['refusal']>[0], request: object) => {
  const error: QuarryError = await caller.refusal(method, request as never);
  return { code: error.code, message: error.message.replace(/[0-9a-f-]{36}/g, '<id>') };
};

describe('DeletePlan', () => {
  it('deletes the plan and everything it produced in the plan schema, and keeps a content-free tombstone', async () => {
    const { planId, executionId } = await busyPlan(api);
    const before = await rowsOf(planId);
    expect(before).toMatchObject({ research_plans: 1, plan_steps: 2, user_reviews: 1, research_feedback: 1 });
    expect(before.plan_audit_log).toBeGreaterThan(4);

    const answer = await api.call('deletePlan', { planId });
    expect(answer).toEqual({
      planId,
      deleted: true,
      stepsDeleted: 2,
      artifactsDeleted: 0,
      outputsDeleted: 0,
      extractionResultsDeleted: 0,
    });
    expect(await rowsOf(planId)).toEqual({
      research_plans: 0,
      plan_steps: 0,
      branching_conditions: 0,
      user_reviews: 0,
      research_feedback: 0,
      step_result_submissions: 0,
      plan_audit_log: 0,
      skill_executions: 0,
    });
    // The skill execution itself stays (it is the client's session), without the link.
    const { rows: executions } = await sql<{ plan_id: string | null }>`
      select plan_id from plan.skill_executions where id = ${executionId}`.execute(admin());
    expect(executions).toEqual([{ plan_id: null }]);

    const { rows: tombstones } = await sql<Record<string, unknown>>`
      select * from plan.deleted_plans where plan_id = ${planId}`.execute(admin());
    expect(tombstones).toEqual([
      expect.objectContaining({
        org_id: api.orgId,
        steps_deleted: 2,
        audit_rows_purged: before.plan_audit_log,
        audit_rows_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    ]);
    expect(JSON.stringify(tombstones)).not.toMatch(/Private|Secret|confidential/i);
  });

  it('answers PLAN_NOT_FOUND afterwards exactly like a random id or another org’s plan, on every tool that takes it', async () => {
    const { planId, stepIds } = await busyPlan(api);
    await api.call('deletePlan', { planId });
    const other = engine.newOrg();
    const foreign = (
      await other.call('createResearchPlan', { name: 'Theirs', researchQuestion: 'Q?', steps: stepsOf('search') })
    ).planId;
    const step = stepIds[0]!;
    const calls: [Parameters<PlanCaller['refusal']>[0], (id: string) => object][] = [
      ['deletePlan', (id) => ({ planId: id })],
      ['getPlanStatus', (id) => ({ planId: id })],
      ['getNextStep', (id) => ({ planId: id })],
      ['getResearchContext', (id) => ({ planId: id })],
      ['getStepContext', (id) => ({ planId: id, stepId: step })],
      [
        'modifyPlan',
        (id) => ({
          planId: id,
          action: ModifyPlanAction.MODIFY_PLAN_ACTION_ADD_STEPS,
          steps: [{ stepType: 1, instructions: 'X' }],
          modificationRationale: 'r',
        }),
      ],
      ['submitStepResult', (id) => ({ planId: id, stepId: step, result: { a: 1 } })],
      ['requestUserReview', (id) => ({ planId: id, stepId: step, summary: 's' })],
      ['submitUserDecision', (id) => ({ planId: id, stepId: step, decision: ReviewDecision.REVIEW_DECISION_APPROVE })],
      ['submitResearchFeedback', (id) => ({ planId: id, feedbackType: FeedbackType.FEEDBACK_TYPE_INITIAL })],
      ['resolvePlanReference', (id) => ({ planId: id })],
    ];
    for (const [method, request] of calls) {
      const deleted = await notFound(api, method, request(planId));
      expect({ method, ...deleted }).toEqual({ method, ...(await notFound(api, method, request(randomUUID()))) });
      expect({ method, ...deleted }).toEqual({ method, ...(await notFound(api, method, request(foreign))) });
      expect({ method, code: deleted.code }).toEqual({ method, code: 'PLAN_NOT_FOUND' });
    }
    // The other org's plan is untouched.
    expect((await other.call('getPlanStatus', { planId: foreign })).planId).toBe(foreign);
    const listed = await api.call('listActivePlans', {});
    expect(JSON.stringify(listed)).not.toContain(planId);
  });

  it('keeps the audit log append-only for the app role: only the purge function deletes its rows', async () => {
    const { planId } = await busyPlan(api);
    const app = engine.database.app;
    await expect(
      app.transaction().execute(async (trx) => {
        await sql`select set_config('app.org_id', ${api.orgId}, true), set_config('quarry.audit_purge', 'on', true)`.execute(
          trx,
        );
        await sql`delete from plan.plan_audit_log where plan_id = ${planId}`.execute(trx);
      }),
    ).rejects.toThrow(/append-only/);
    await expect(sql`delete from plan.deleted_plans`.execute(app)).rejects.toThrow(/append-only/);
    expect((await rowsOf(planId)).plan_audit_log).toBeGreaterThan(0);
  });
});
