import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { sql } from 'kysely';
import { connectClient, startTestGateway } from './harness.js';
import { callOk, callTool, planSnapshot, type ToolAnswer } from './plan-tools.js';

// Tenancy, as a user of another org sees it: every id of org A (plan, step, skill execution),
// given to any plan tool by org B, behaves exactly like an id that does not exist — the same
// error code and the same message — and nothing in the plan schema changes. Org B's own lists
// and writes never reach org A's rows.

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let orgA: Client;
let orgB: Client;

/** Org A's ids, all of real, live rows. */
const a = { planId: '', stepIds: [] as string[], executionId: '', orgId: '' };
/** Org B's own rows: a plan executing (step 1 in progress), a plan awaiting a review, an execution. */
const b = { planId: '', stepIds: [] as string[], reviewPlanId: '', reviewStepId: '', executionId: '', orgId: '' };

const steps = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    stepType: i === n - 1 ? 'synthesize' : 'search',
    instructions: `Step ${i + 1}`,
  }));

beforeAll(async () => {
  gateway = await startTestGateway();
  orgA = await connectClient(gateway.url, gateway.token, 'modern');
  const rival = await gateway.admin.createOrg({ slug: 'rival', name: 'Rival Labs' });
  await gateway.admin.addUser({ email: 'eve@rival.test', orgSlug: 'rival', name: 'Eve' });
  const { token } = await gateway.admin.createToken({ orgSlug: 'rival', email: 'eve@rival.test' });
  orgB = await connectClient(gateway.url, token, 'legacy');
  b.orgId = rival.id;
  a.orgId = (await gateway.admin.findOrg('acme'))!.id;

  // Org A: a skill execution, a plan linked to it with a branching condition, results (one with
  // an idempotency key), an approved review, an open review, and feedback.
  a.executionId = (
    await callOk(orgA, 'log_skill_execution', {
      skillName: 'research',
      status: 'started',
      sessionId: 'a-session',
      metadata: { topic: 'secret' },
    })
  ).executionId;
  a.planId = (
    await callOk(orgA, 'create_research_plan', {
      name: 'Org A secret plan',
      researchQuestion: 'What does org A research?',
      steps: steps(4),
      branchingConditions: [
        {
          afterStepOrder: 1,
          conditionExpression: 'confidence < 0.1',
          ifTrueAction: 'skip_to',
          actionParams: { targetStepOrder: 4 },
        },
      ],
      sessionId: 'a-session',
    })
  ).planId;
  const first = (await callOk(orgA, 'get_next_step', { planId: a.planId, sessionId: 'a-session' })).step;
  await callOk(orgA, 'submit_step_result', {
    planId: a.planId,
    stepId: first.stepId,
    result: { summary: 'A found things' },
    confidence: 0.9,
    idempotencyKey: 'a-key',
  });
  const second = (await callOk(orgA, 'get_next_step', { planId: a.planId })).step;
  await callOk(orgA, 'request_user_review', { planId: a.planId, stepId: second.stepId, summary: 'Check this' });
  await callOk(orgA, 'submit_user_decision', { planId: a.planId, stepId: second.stepId, decision: 'approve' });
  const third = (await callOk(orgA, 'get_next_step', { planId: a.planId })).step;
  await callOk(orgA, 'request_user_review', { planId: a.planId, stepId: third.stepId, summary: 'And this' });
  await callOk(orgA, 'submit_research_feedback', { planId: a.planId, feedbackType: 'initial', userSatisfaction: 4 });
  a.stepIds = (await callOk(orgA, 'get_research_context', { planId: a.planId })).steps.map(
    (s: { stepId: string }) => s.stepId,
  );

  // Org B.
  b.executionId = (
    await callOk(orgB, 'log_skill_execution', { skillName: 'research-scan', status: 'started' })
  ).executionId;
  b.planId = (
    await callOk(orgB, 'create_research_plan', {
      name: 'Org B plan',
      researchQuestion: 'What does org B research?',
      steps: steps(3),
    })
  ).planId;
  const bFirst = (await callOk(orgB, 'get_next_step', { planId: b.planId })).step;
  b.stepIds = (await callOk(orgB, 'get_research_context', { planId: b.planId })).steps.map(
    (s: { stepId: string }) => s.stepId,
  );
  expect(bFirst.stepId).toBe(b.stepIds[0]);
  b.reviewPlanId = (
    await callOk(orgB, 'create_research_plan', { name: 'Org B review', researchQuestion: 'Reviewed?', steps: steps(2) })
  ).planId;
  b.reviewStepId = (await callOk(orgB, 'get_next_step', { planId: b.reviewPlanId })).step.stepId;
  await callOk(orgB, 'request_user_review', { planId: b.reviewPlanId, stepId: b.reviewStepId, summary: 'B review' });
}, 60_000);

afterAll(async () => {
  await orgA?.close();
  await orgB?.close();
  await gateway?.close();
});

/** The foreign ids a case uses; the control run replaces each with a fresh random UUID. */
interface Ids {
  planId: string;
  stepId: string;
  otherStepId: string;
  executionId: string;
}

interface Case {
  name: string;
  tool: string;
  args: (ids: Ids) => Record<string, unknown>;
  code: string;
}

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

/** Every plan tool that takes an id, with org A's ids in every position that takes one. */
const cases: Case[] = [
  // Org A's plan.
  { name: 'status of A’s plan', tool: 'get_plan_status', args: (i) => ({ planId: i.planId }), code: 'PLAN_NOT_FOUND' },
  {
    name: 'long-poll on A’s plan',
    tool: 'get_plan_status',
    args: (i) => ({ planId: i.planId, waitSeconds: 5 }),
    code: 'PLAN_NOT_FOUND',
  },
  {
    name: 'add steps to A’s plan',
    tool: 'modify_plan',
    args: (i) => ({
      planId: i.planId,
      action: 'add_steps',
      steps: [{ stepType: 'custom', instructions: 'Injected', insertAfterOrder: 0 }],
    }),
    code: 'PLAN_NOT_FOUND',
  },
  {
    name: 'remove A’s step',
    tool: 'modify_plan',
    args: (i) => ({ planId: i.planId, action: 'remove_step', stepId: i.otherStepId }),
    code: 'PLAN_NOT_FOUND',
  },
  {
    name: 'reorder A’s plan',
    tool: 'modify_plan',
    args: (i) => ({ planId: i.planId, action: 'reorder_steps', stepOrder: [i.otherStepId, i.stepId] }),
    code: 'PLAN_NOT_FOUND',
  },
  {
    name: 'rewrite A’s instructions',
    tool: 'modify_plan',
    args: (i) => ({
      planId: i.planId,
      action: 'update_step_instructions',
      stepId: i.otherStepId,
      updatedInstructions: 'Leak everything',
    }),
    code: 'PLAN_NOT_FOUND',
  },
  {
    name: 'fail A’s step',
    tool: 'modify_plan',
    args: (i) => ({ planId: i.planId, action: 'fail_step', stepId: i.otherStepId, reason: 'sabotage' }),
    code: 'PLAN_NOT_FOUND',
  },
  {
    name: 'claim from A’s plan',
    tool: 'get_next_step',
    args: (i) => ({ planId: i.planId, sessionId: 'b-session' }),
    code: 'PLAN_NOT_FOUND',
  },
  {
    name: 'submit to A’s step',
    tool: 'submit_step_result',
    args: (i) => ({ planId: i.planId, stepId: i.stepId, result: { forged: true }, confidence: 0.01 }),
    code: 'PLAN_NOT_FOUND',
  },
  {
    name: 'replay A’s idempotency key',
    tool: 'submit_step_result',
    args: (i) => ({ planId: i.planId, stepId: i.stepId, result: { forged: true }, idempotencyKey: 'a-key' }),
    code: 'PLAN_NOT_FOUND',
  },
  {
    name: 'context of A’s step',
    tool: 'get_step_context',
    args: (i) => ({ planId: i.planId, stepId: i.stepId }),
    code: 'PLAN_NOT_FOUND',
  },
  {
    name: 'review A’s step',
    tool: 'request_user_review',
    args: (i) => ({ planId: i.planId, stepId: i.stepId, summary: 'B asks' }),
    code: 'PLAN_NOT_FOUND',
  },
  {
    name: 'decide A’s open review',
    tool: 'submit_user_decision',
    args: (i) => ({ planId: i.planId, stepId: i.stepId, decision: 'reject', feedback: 'no' }),
    code: 'PLAN_NOT_FOUND',
  },
  {
    name: 'read A’s research context',
    tool: 'get_research_context',
    args: (i) => ({ planId: i.planId }),
    code: 'PLAN_NOT_FOUND',
  },
  {
    name: 'resume A’s plan',
    tool: 'get_research_context',
    args: (i) => ({ planId: i.planId, sessionId: 'b-session' }),
    code: 'PLAN_NOT_FOUND',
  },
  {
    name: 'feedback on A’s plan',
    tool: 'submit_research_feedback',
    args: (i) => ({ planId: i.planId, feedbackType: 'closing', userSatisfaction: 1 }),
    code: 'PLAN_NOT_FOUND',
  },
  {
    name: 'new execution on A’s plan',
    tool: 'log_skill_execution',
    args: (i) => ({ skillName: 'research', status: 'started', planId: i.planId }),
    code: 'PLAN_NOT_FOUND',
  },
  // Org A's skill execution.
  {
    name: 'finish A’s execution',
    tool: 'log_skill_execution',
    args: (i) => ({ executionId: i.executionId, skillName: 'research', status: 'failed', errorMessage: 'B was here' }),
    code: 'SKILL_EXECUTION_NOT_FOUND',
  },
  {
    name: 'attach B’s execution to A’s plan',
    tool: 'log_skill_execution',
    args: (i) => ({ executionId: b.executionId, skillName: 'research-scan', status: 'executing', planId: i.planId }),
    code: 'PLAN_NOT_FOUND',
  },
  // Org A's steps inside org B's own plans.
  {
    name: 'remove A’s step from B’s plan',
    tool: 'modify_plan',
    args: (i) => ({ planId: b.planId, action: 'remove_step', stepId: i.otherStepId }),
    code: 'STEP_NOT_FOUND',
  },
  {
    name: 'reorder A’s step into B’s plan',
    tool: 'modify_plan',
    args: (i) => ({ planId: b.planId, action: 'reorder_steps', stepOrder: [b.stepIds[2], b.stepIds[1], i.stepId] }),
    code: 'INVALID_REORDER',
  },
  {
    name: 'rewrite A’s step through B’s plan',
    tool: 'modify_plan',
    args: (i) => ({
      planId: b.planId,
      action: 'update_step_instructions',
      stepId: i.otherStepId,
      updatedInstructions: 'x',
    }),
    code: 'STEP_NOT_FOUND',
  },
  {
    name: 'fail A’s step through B’s plan',
    tool: 'modify_plan',
    args: (i) => ({ planId: b.planId, action: 'fail_step', stepId: i.otherStepId }),
    code: 'STEP_NOT_FOUND',
  },
  {
    name: 'submit to A’s step through B’s plan',
    tool: 'submit_step_result',
    args: (i) => ({ planId: b.planId, stepId: i.stepId, result: { forged: true } }),
    code: 'STEP_NOT_FOUND',
  },
  {
    name: 'context of A’s step through B’s plan',
    tool: 'get_step_context',
    args: (i) => ({ planId: b.planId, stepId: i.stepId }),
    code: 'STEP_NOT_FOUND',
  },
  {
    name: 'A’s step as prior step of B’s step',
    tool: 'get_step_context',
    args: (i) => ({ planId: b.planId, stepId: b.stepIds[1], priorStepIds: [i.stepId] }),
    code: 'STEP_NOT_FOUND',
  },
  {
    name: 'review A’s step through B’s plan',
    tool: 'request_user_review',
    args: (i) => ({ planId: b.planId, stepId: i.stepId, summary: 'B asks' }),
    code: 'STEP_NOT_FOUND',
  },
  {
    name: 'decide A’s review through B’s plan',
    tool: 'submit_user_decision',
    args: (i) => ({ planId: b.reviewPlanId, stepId: i.stepId, decision: 'approve' }),
    code: 'STEP_NOT_FOUND',
  },
];

/** The answer with the case's ids replaced by their names, so a foreign and a missing id compare equal. */
function normalized(answer: ToolAnswer, ids: Ids): string {
  let text = JSON.stringify(answer);
  for (const [name, id] of Object.entries(ids)) text = text.split(id).join(`<${name}>`);
  return text;
}

describe('org B calling plan tools with org A’s ids', () => {
  it('uses ids that are real for org A (the positive control)', async () => {
    const [status, context, research] = await Promise.all([
      callTool(orgA, 'get_plan_status', { planId: a.planId }),
      callTool(orgA, 'get_step_context', { planId: a.planId, stepId: a.stepIds[2], priorStepIds: [a.stepIds[0]] }),
      callTool(orgA, 'get_research_context', { planId: a.planId }),
    ]);
    expect(status).toMatchObject({
      isError: false,
      data: { planId: a.planId, status: 'awaiting_review', totalSteps: 4 },
    });
    expect(context).toMatchObject({
      isError: false,
      data: {
        currentStep: { stepId: a.stepIds[2], status: 'awaiting_input' },
        priorSteps: [{ resultSummary: 'A found things' }],
      },
    });
    expect(research.data.skillExecution).toMatchObject({ executionId: a.executionId, planId: a.planId });
    expect(a.stepIds).toHaveLength(4);
    // Org A has rows in every org-scoped table a foreign call could reach.
    const rowsOfA = await planSnapshot(gateway.database.admin, a.orgId);
    const counts = Object.fromEntries(Object.entries(rowsOfA).map(([table, rows]) => [table, rows.length]));
    expect(counts).toEqual({
      branching_conditions: 1,
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

  it.each(cases)(
    '$name ($tool) → $code, exactly as for a missing id, and nothing changes',
    async ({ tool, args, code }) => {
      const before = await planSnapshot(gateway.database.admin);
      const foreign = foreignIds();
      const missing = missingIds();
      const [asForeign, asMissing] = [
        await callTool(orgB, tool, args(foreign)),
        await callTool(orgB, tool, args(missing)),
      ];

      expect(asForeign.isError).toBe(true);
      expect(asForeign.data.error.code).toBe(code);
      expect(normalized(asForeign, foreign)).toBe(normalized(asMissing, missing));
      // No id of org A in the answer, except the ones the caller sent.
      expect(JSON.stringify(asForeign.data)).not.toContain(a.orgId);
      expect(await planSnapshot(gateway.database.admin)).toEqual(before);
    },
  );

  it('answers a long-poll on a foreign plan at once, like a missing plan, without waiting', async () => {
    const began = performance.now();
    const answer = await callTool(orgB, 'get_plan_status', { planId: a.planId, waitSeconds: 10 });
    expect(answer.data.error.code).toBe('PLAN_NOT_FOUND');
    expect(performance.now() - began).toBeLessThan(5_000);
  });

  it('lists only org B’s own plans in list_active_plans, page by page', async () => {
    const listed: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await callOk(orgB, 'list_active_plans', cursor ? { limit: 1, cursor } : { limit: 1 });
      expect(page.activePlans).toBe(2);
      listed.push(...page.plans.map((p: { planId: string }) => p.planId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(listed.sort()).toEqual([b.planId, b.reviewPlanId].sort());

    const ofA = await callOk(orgA, 'list_active_plans', {});
    expect(ofA.plans.map((p: { planId: string }) => p.planId)).toEqual([a.planId]);
  });

  it('never links org A’s skill execution or reuses org A’s idempotency key in org B’s own writes', async () => {
    const aRows = await planSnapshot(gateway.database.admin, a.orgId);

    // A's session id names an active execution of org A; a plan of org B must not pick it up.
    const created = await callOk(orgB, 'create_research_plan', {
      name: 'Same session',
      researchQuestion: 'Linked?',
      steps: steps(2),
      sessionId: 'a-session',
    });
    const context = await callOk(orgB, 'get_research_context', { planId: created.planId });
    expect(context.skillExecution ?? null).toBeNull();
    const { rows } = await sql<{
      skill_execution_id: string | null;
    }>`select skill_execution_id from plan.research_plans where id = ${created.planId}::uuid`.execute(
      gateway.database.admin,
    );
    expect(rows).toEqual([{ skill_execution_id: null }]);

    // A's idempotency key, on org B's own step, is just a new key: the result is stored.
    const [stepId] = context.steps.map((s: { stepId: string }) => s.stepId);
    const submitted = await callOk(orgB, 'submit_step_result', {
      planId: created.planId,
      stepId,
      result: { mine: true },
      idempotencyKey: 'a-key',
    });
    expect(submitted).toEqual({ submitted: true, planStatus: 'executing' });
    const after = await callOk(orgB, 'get_research_context', { planId: created.planId });
    expect(after.steps[0]).toMatchObject({ status: 'completed', result: { mine: true } });

    expect(await planSnapshot(gateway.database.admin, a.orgId)).toEqual(aRows);
  });
});
