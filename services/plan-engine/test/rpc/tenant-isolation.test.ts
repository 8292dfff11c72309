import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import type { QuarryError } from '@quarry/grpc';
import {
  BranchAction,
  FeedbackType,
  PlanStatus,
  type PlanCaller,
  ReviewDecision,
  SkillExecutionStatus,
  StepStatus,
  StepType,
} from '../support/plan-api.js';
import { foreignIdCases, type Ids, type OwnRows } from '../support/foreign-id-cases.js';
import { startTestPlanEngine, type TestPlanEngine } from '../support/plan-engine.js';
import { planSnapshot } from '../support/plan-rows.js';

// Tenancy, as a member of another org sees it: every id of org A (plan, step, skill execution),
// given to any rpc by org B, behaves exactly like an id that does not exist — the same error
// code, status, message and details — and nothing in the plan schema changes. Org B's own lists
// and writes never reach org A's rows.

let engine: TestPlanEngine;
let orgA: PlanCaller;
let orgB: PlanCaller;
const admin = () => engine.database.admin;

/** Org A's ids, all of real, live rows. */
const a = { planId: '', stepIds: [] as string[], executionId: '' };
/** Org B's own rows: a plan executing (step 1 in progress), a plan awaiting a review, an execution. */
const b: OwnRows = { planId: '', stepIds: [], reviewPlanId: '', executionId: '' };

const steps = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    stepType: i === n - 1 ? StepType.STEP_TYPE_SYNTHESIZE : StepType.STEP_TYPE_SEARCH,
    instructions: `Step ${i + 1}`,
  }));
const STARTED = SkillExecutionStatus.SKILL_EXECUTION_STATUS_STARTED;

beforeAll(async () => {
  engine = await startTestPlanEngine();
  orgA = engine.newOrg();
  orgB = engine.newOrg();

  // Org A: a skill execution, a plan linked to it with a branching condition, results (one with
  // an idempotency key), an approved review, an open review, and feedback.
  a.executionId = (
    await orgA.call('logSkillExecution', {
      skillName: 'research',
      status: STARTED,
      sessionId: 'a-session',
      metadata: { topic: 'secret' },
    })
  ).executionId;
  a.planId = (
    await orgA.call('createResearchPlan', {
      name: 'Org A secret plan',
      researchQuestion: 'What does org A research?',
      steps: steps(4),
      branchingConditions: [
        {
          afterStepOrder: 1,
          conditionExpression: 'confidence < 0.1',
          ifTrueAction: BranchAction.BRANCH_ACTION_SKIP_TO,
          actionParams: { targetStepOrder: 4 },
        },
      ],
      sessionId: 'a-session',
    })
  ).planId;
  const planId = a.planId;
  const first = (await orgA.call('getNextStep', { planId, sessionId: 'a-session' })).step!;
  await orgA.call('submitStepResult', {
    planId,
    stepId: first.stepId,
    result: { summary: 'A found things' },
    confidence: 0.9,
    idempotencyKey: 'a-key',
  });
  const second = (await orgA.call('getNextStep', { planId })).step!;
  await orgA.call('requestUserReview', { planId, stepId: second.stepId, summary: 'Check this' });
  await orgA.call('submitUserDecision', {
    planId,
    stepId: second.stepId,
    decision: ReviewDecision.REVIEW_DECISION_APPROVE,
  });
  const third = (await orgA.call('getNextStep', { planId })).step!;
  await orgA.call('requestUserReview', { planId, stepId: third.stepId, summary: 'And this' });
  await orgA.call('submitResearchFeedback', {
    planId,
    feedbackType: FeedbackType.FEEDBACK_TYPE_INITIAL,
    userSatisfaction: 4,
  });
  a.stepIds = (await orgA.call('getResearchContext', { planId })).steps.map((s) => s.stepId);

  // Org B.
  b.executionId = (await orgB.call('logSkillExecution', { skillName: 'research-scan', status: STARTED })).executionId;
  b.planId = (
    await orgB.call('createResearchPlan', {
      name: 'Org B plan',
      researchQuestion: 'What does org B research?',
      steps: steps(3),
    })
  ).planId;
  const bFirst = (await orgB.call('getNextStep', { planId: b.planId })).step!;
  b.stepIds = (await orgB.call('getResearchContext', { planId: b.planId })).steps.map((s) => s.stepId);
  expect(bFirst.stepId).toBe(b.stepIds[0]);
  b.reviewPlanId = (
    await orgB.call('createResearchPlan', { name: 'Org B review', researchQuestion: 'Reviewed?', steps: steps(2) })
  ).planId;
  const reviewStep = (await orgB.call('getNextStep', { planId: b.reviewPlanId })).step!.stepId;
  await orgB.call('requestUserReview', { planId: b.reviewPlanId, stepId: reviewStep, summary: 'B review' });
}, 60_000);

afterAll(async () => {
  await engine?.close();
});

const foreignIds = (): Ids => ({
  planId: a.planId,
  stepId: a.stepIds[2]!,
  otherStepId: a.stepIds[3]!,
  executionId: a.executionId,
});
const missingIds = (): Ids => ({
  planId: randomUUID(),
  stepId: randomUUID(),
  otherStepId: randomUUID(),
  executionId: randomUUID(),
});

/** The refusal as the caller receives it, with the case's ids replaced by their names. */
function normalized(error: QuarryError, ids: Ids): string {
  let text = JSON.stringify({ code: error.code, status: error.status, message: error.message, details: error.details });
  for (const [name, id] of Object.entries(ids)) text = text.split(id).join(`<${name}>`);
  return text;
}

describe('org B calling PlanService with org A’s ids', () => {
  it('uses ids that are real for org A (the positive control)', async () => {
    const [status, context, research] = await Promise.all([
      orgA.call('getPlanStatus', { planId: a.planId }),
      orgA.call('getStepContext', { planId: a.planId, stepId: a.stepIds[2], priorStepIds: [a.stepIds[0]!] }),
      orgA.call('getResearchContext', { planId: a.planId }),
    ]);
    expect(status).toMatchObject({ planId: a.planId, status: PlanStatus.PLAN_STATUS_AWAITING_REVIEW, totalSteps: 4 });
    expect(context).toMatchObject({
      currentStep: { stepId: a.stepIds[2], status: StepStatus.STEP_STATUS_AWAITING_INPUT },
      priorSteps: [{ resultSummary: 'A found things' }],
    });
    expect(research.skillExecution).toMatchObject({ id: a.executionId, planId: a.planId });
    expect(await orgA.call('resolvePlanReference', { planId: a.planId, stepId: a.stepIds[2] })).toEqual({
      planId: a.planId,
      stepId: a.stepIds[2],
    });
    expect(a.stepIds).toHaveLength(4);
    // Org A has rows in every org-scoped table a foreign call could reach.
    const rowsOfA = await planSnapshot(admin(), orgA.orgId);
    const counts = Object.fromEntries(Object.entries(rowsOfA).map(([table, rows]) => [table, rows.length]));
    expect(counts).toEqual({
      branching_conditions: 1,
      deleted_plans: 0,
      output_preferences: 0,
      plan_audit_log: expect.any(Number),
      plan_steps: 4,
      research_feedback: 1,
      research_plans: 1,
      skill_executions: 1,
      step_result_submissions: 1,
      user_reviews: 2,
    });
  });

  it.each(foreignIdCases)(
    '$name ($method) → $code, exactly as for a missing id, and nothing changes',
    async ({ method, args, code }) => {
      const before = await planSnapshot(admin());
      const foreign = foreignIds();
      const missing = missingIds();
      const asForeign = await orgB.refusal(method, args(foreign, b));
      const asMissing = await orgB.refusal(method, args(missing, b));

      expect(asForeign.code).toBe(code);
      expect(normalized(asForeign, foreign)).toBe(normalized(asMissing, missing));
      // No id of org A in the answer, except the ones the caller sent.
      expect(normalized(asForeign, foreign)).not.toContain(orgA.orgId);
      expect(await planSnapshot(admin())).toEqual(before);
    },
  );

  it('answers a long-poll on a foreign plan at once, like a missing plan, without waiting', async () => {
    const began = performance.now();
    const outcome = await orgB.attempt('getPlanStatus', { planId: a.planId, waitSeconds: 10 }, { deadlineMs: 15_000 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'PLAN_NOT_FOUND' } });
    expect(performance.now() - began).toBeLessThan(5_000);
  });

  it('lists only org B’s own plans in list_active_plans, page by page', async () => {
    const listed: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await orgB.call('listActivePlans', { limit: 1, cursor });
      expect(page.activePlans).toBe(2);
      listed.push(...page.plans.map((p) => p.planId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(listed.sort()).toEqual([b.planId, b.reviewPlanId].sort());

    const ofA = await orgA.call('listActivePlans', {});
    expect(ofA.plans.map((p) => p.planId)).toEqual([a.planId]);
  });

  it('never links org A’s skill execution or reuses org A’s idempotency key in org B’s own writes', async () => {
    const aRows = await planSnapshot(admin(), orgA.orgId);

    // A's session id names an active execution of org A; a plan of org B must not pick it up.
    const created = await orgB.call('createResearchPlan', {
      name: 'Same session',
      researchQuestion: 'Linked?',
      steps: steps(2),
      sessionId: 'a-session',
    });
    const context = await orgB.call('getResearchContext', { planId: created.planId });
    expect(context.skillExecution ?? null).toBeNull();
    const { rows } = await sql<{
      skill_execution_id: string | null;
    }>`select skill_execution_id from plan.research_plans where id = ${created.planId}::uuid`.execute(admin());
    expect(rows).toEqual([{ skill_execution_id: null }]);

    // A's idempotency key, on org B's own step, is just a new key: the result is stored.
    const [stepId] = context.steps.map((s) => s.stepId);
    const submitted = await orgB.call('submitStepResult', {
      planId: created.planId,
      stepId,
      result: { mine: true },
      idempotencyKey: 'a-key',
    });
    expect(submitted).toEqual({ submitted: true, planStatus: PlanStatus.PLAN_STATUS_EXECUTING });
    const after = await orgB.call('getResearchContext', { planId: created.planId });
    expect(after.steps[0]).toMatchObject({ status: StepStatus.STEP_STATUS_COMPLETED, result: { mine: true } });

    expect(await planSnapshot(admin(), orgA.orgId)).toEqual(aRows);
  });
});
