import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { sql } from 'kysely';
import { connectClient, startTestGateway } from './harness.js';
import {
  type AuditRow,
  auditRows,
  callOk,
  callTool,
  lastAuditId,
  planSnapshot,
  type ToolAnswer,
} from './plan-tools.js';

// plan.plan_audit_log, as an auditor relies on it: every mutating tool appends exactly the
// business events it caused (type, step, session, payload) in the same transaction as the
// change itself; a refused call appends nothing; reads append nothing; and the log cannot be
// rewritten, not even by the database owner.

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let client: Client;
const db = () => gateway.database.admin;

beforeAll(async () => {
  gateway = await startTestGateway();
  client = await connectClient(gateway.url, gateway.token, 'modern');
});
afterAll(async () => {
  await client?.close();
  await gateway?.close();
});

const call = (name: string, args: Record<string, unknown>) => callTool(client, name, args);
const ok = (name: string, args: Record<string, unknown>) => callOk(client, name, args);

/** Runs one tool call and returns its answer with every audit row it appended (to any plan). */
async function audited(name: string, args: Record<string, unknown>): Promise<{ answer: ToolAnswer; rows: AuditRow[] }> {
  const cursor = await lastAuditId(db());
  const answer = await call(name, args);
  return { answer, rows: await auditRows(db(), { afterId: cursor }) };
}

/** The rows as an auditor reads them. */
const events = (rows: readonly AuditRow[]) =>
  rows.map((r) => ({
    type: r.eventType,
    planId: r.planId,
    stepId: r.stepId,
    sessionId: r.sessionId,
    details: r.details,
  }));

async function xminOf(
  table: 'research_plans' | 'research_feedback' | 'user_reviews' | 'plan_steps',
  id: string,
): Promise<{ xmin: string; at: Date | null }> {
  const { rows } = await sql<{ xmin: string; at: Date | null }>`
    select xmin::text as xmin, ${sql.raw(table === 'research_feedback' ? 'created_at' : table === 'user_reviews' ? 'coalesce(decided_at, requested_at)' : 'updated_at')} as at
    from ${sql.table(`plan.${table}`)} where id = ${id}::uuid`.execute(db());
  return rows[0]!;
}

/**
 * The rows were written by one transaction, the one that wrote `row` (PostgreSQL stamps every
 * row version with its writer's transaction id, `xmin`), at the same instant as that change.
 */
async function expectSameTransaction(
  rows: readonly AuditRow[],
  table: Parameters<typeof xminOf>[0],
  id: string,
): Promise<void> {
  expect(rows.length).toBeGreaterThan(0);
  const changed = await xminOf(table, id);
  expect(rows.map((r) => r.xmin)).toEqual(rows.map(() => changed.xmin));
  expect(rows.map((r) => r.occurredAt.getTime())).toEqual(rows.map(() => changed.at!.getTime()));
}

async function stepIdsOf(planId: string): Promise<string[]> {
  const { rows } = await sql<{
    id: string;
  }>`select id from plan.plan_steps where plan_id = ${planId}::uuid order by step_order`.execute(db());
  return rows.map((r) => r.id);
}

async function conditionIdsOf(planId: string): Promise<string[]> {
  const { rows } = await sql<{
    id: string;
  }>`select id from plan.branching_conditions where plan_id = ${planId}::uuid order by evaluation_order`.execute(db());
  return rows.map((r) => r.id);
}

async function newPlan(
  stepCount: number,
  extra: Record<string, unknown> = {},
): Promise<{ planId: string; steps: string[] }> {
  const { planId } = await ok('create_research_plan', {
    name: 'Audited plan',
    researchQuestion: 'Is every change on the record?',
    steps: Array.from({ length: stepCount }, (_, i) => ({ stepType: 'analyze', instructions: `Step ${i + 1}` })),
    ...extra,
  });
  return { planId, steps: await stepIdsOf(planId) };
}

/** A refused call: a tool error with `code`, and not one row of the plan schema changed. */
async function expectRefusedWithoutTrace(name: string, args: Record<string, unknown>, code: string): Promise<void> {
  const before = await planSnapshot(db());
  const answer = await call(name, args);
  expect(answer).toMatchObject({ isError: true, data: { error: { code } } });
  expect(await planSnapshot(db())).toEqual(before);
}

describe('create_research_plan', () => {
  it('writes one plan_modified (created) row with the counts, the rationale and the session', async () => {
    const { answer, rows } = await audited('create_research_plan', {
      name: 'Created',
      researchQuestion: 'Recorded?',
      steps: [
        { stepType: 'search', instructions: 'Search' },
        { stepType: 'analyze', instructions: 'Analyze' },
        { stepType: 'synthesize', instructions: 'Write' },
      ],
      branchingConditions: [
        {
          afterStepOrder: 1,
          conditionExpression: 'confidence < 0.5',
          ifTrueAction: 'skip_to',
          actionParams: { targetStepOrder: 3 },
        },
      ],
      planDesignRationale: 'Search, then think',
      sessionId: 's-create',
    });
    const { planId } = answer.data;
    expect(events(rows)).toEqual([
      {
        type: 'plan_modified',
        planId,
        stepId: null,
        sessionId: 's-create',
        details: { change: 'created', stepCount: 3, conditionCount: 1, rationale: 'Search, then think' },
      },
    ]);
    await expectSameTransaction(rows, 'research_plans', planId);
  });

  it('writes nothing when the plan is refused', async () => {
    await expectRefusedWithoutTrace(
      'create_research_plan',
      {
        name: 'Refused',
        researchQuestion: 'Recorded?',
        steps: [{ stepType: 'search', instructions: 'x' }],
        branchingConditions: [{ afterStepOrder: 1, conditionExpression: 'confidence <', ifTrueAction: 'fail' }],
      },
      'EXPRESSION_SYNTAX',
    );
  });
});

describe('get_next_step', () => {
  it('writes step_started, plus plan_status_changed on the first claim only, and nothing when there is nothing to hand out', async () => {
    const { planId, steps } = await newPlan(2);
    const first = await audited('get_next_step', { planId, sessionId: 's-claim' });
    expect(events(first.rows)).toEqual([
      {
        type: 'step_started',
        planId,
        stepId: steps[0],
        sessionId: 's-claim',
        details: { stepOrder: 1, autoAdvanced: false },
      },
      {
        type: 'plan_status_changed',
        planId,
        stepId: null,
        sessionId: 's-claim',
        details: { from: 'planning', to: 'executing', cause: 'claim_next_step' },
      },
    ]);
    await expectSameTransaction(first.rows, 'research_plans', planId);
    await expectSameTransaction(first.rows, 'plan_steps', steps[0]!);

    const second = await audited('get_next_step', { planId });
    expect(events(second.rows)).toEqual([
      {
        type: 'step_started',
        planId,
        stepId: steps[1],
        sessionId: null,
        details: { stepOrder: 2, autoAdvanced: false },
      },
    ]);
    await expectSameTransaction(second.rows, 'research_plans', planId);

    const before = await planSnapshot(db());
    expect((await ok('get_next_step', { planId })).status).toBe('no_pending_steps');
    expect(await planSnapshot(db())).toEqual(before);

    // Nor while a review is open, nor once the plan is finished.
    await ok('request_user_review', { planId, stepId: steps[0], summary: 'Wait' });
    const waiting = await planSnapshot(db());
    expect((await ok('get_next_step', { planId })).status).toBe('awaiting_review');
    expect(await planSnapshot(db())).toEqual(waiting);
    await ok('submit_user_decision', { planId, stepId: steps[0], decision: 'reject', feedback: 'stop' });
    const finished = await planSnapshot(db());
    expect((await ok('get_next_step', { planId })).status).toBe('plan_failed');
    expect(await planSnapshot(db())).toEqual(finished);
  });
});

describe('submit_step_result', () => {
  it('writes step_completed for an in_progress step, nothing for an idempotent retry or a refused result', async () => {
    const { planId, steps } = await newPlan(2);
    await ok('get_next_step', { planId });
    const args = {
      planId,
      stepId: steps[0],
      result: { summary: 'done' },
      confidence: 0.9,
      sessionId: 's-submit',
      idempotencyKey: 'k-1',
    };
    const { answer, rows } = await audited('submit_step_result', args);
    expect(answer.data).toEqual({ submitted: true, planStatus: 'executing' });
    expect(events(rows)).toEqual([
      {
        type: 'step_completed',
        planId,
        stepId: steps[0],
        sessionId: 's-submit',
        details: { stepOrder: 1, confidence: 0.9, via: 'result', branch: null },
      },
    ]);
    await expectSameTransaction(rows, 'plan_steps', steps[0]!);

    const before = await planSnapshot(db());
    expect(await ok('submit_step_result', args)).toEqual({ submitted: true, planStatus: 'executing' });
    expect(await planSnapshot(db())).toEqual(before);

    await expectRefusedWithoutTrace(
      'submit_step_result',
      { planId, stepId: steps[0], result: { again: true } },
      'STEP_STATE_CONFLICT',
    );
    await expectRefusedWithoutTrace(
      'submit_step_result',
      { planId, stepId: steps[1], result: { x: 1 }, confidence: 1.5 },
      'INVALID_ARGUMENT',
    );
    await expectRefusedWithoutTrace(
      'submit_step_result',
      { planId, stepId: steps[1], result: { x: 1 }, idempotencyKey: 'k-1' },
      'INVALID_ARGUMENT',
    );
  });

  it('writes step_started (auto-advanced) before step_completed for a pending step, and the completion of the plan', async () => {
    const { planId, steps } = await newPlan(1);
    const { answer, rows } = await audited('submit_step_result', {
      planId,
      stepId: steps[0],
      result: { summary: 'all at once' },
    });
    expect(answer.data).toEqual({ submitted: true, planStatus: 'completed' });
    expect(events(rows)).toEqual([
      {
        type: 'step_started',
        planId,
        stepId: steps[0],
        sessionId: null,
        details: { stepOrder: 1, autoAdvanced: true },
      },
      {
        type: 'step_completed',
        planId,
        stepId: steps[0],
        sessionId: null,
        details: { stepOrder: 1, confidence: null, via: 'result', branch: null },
      },
      {
        type: 'plan_status_changed',
        planId,
        stepId: null,
        sessionId: null,
        details: { from: 'planning', to: 'completed', cause: 'submit_step_result' },
      },
    ]);
    await expectSameTransaction(rows, 'research_plans', planId);
  });

  it('records the branch a result took: skip_to lists the skipped steps, fail names the condition', async () => {
    const skip = await newPlan(4, {
      branchingConditions: [
        {
          afterStepOrder: 1,
          conditionExpression: 'result.sources.count >= 5',
          ifTrueAction: 'skip_to',
          actionParams: { targetStepOrder: 4 },
        },
      ],
    });
    const [skipCondition] = await conditionIdsOf(skip.planId);
    await ok('get_next_step', { planId: skip.planId });
    const skipped = await audited('submit_step_result', {
      planId: skip.planId,
      stepId: skip.steps[0],
      result: { sources: { count: 7 } },
      confidence: 0.8,
    });
    expect(events(skipped.rows)).toEqual([
      {
        type: 'step_completed',
        planId: skip.planId,
        stepId: skip.steps[0],
        sessionId: null,
        details: {
          stepOrder: 1,
          confidence: 0.8,
          via: 'result',
          branch: {
            conditionId: skipCondition,
            action: 'skip_to',
            targetStepId: skip.steps[3],
            skippedStepIds: [skip.steps[1], skip.steps[2]],
          },
        },
      },
    ]);
    await expectSameTransaction(skipped.rows, 'plan_steps', skip.steps[2]!);

    const fail = await newPlan(3, {
      branchingConditions: [{ afterStepOrder: 1, conditionExpression: 'confidence < 0.3', ifTrueAction: 'fail' }],
    });
    const [failCondition] = await conditionIdsOf(fail.planId);
    await ok('get_next_step', { planId: fail.planId });
    const failed = await audited('submit_step_result', {
      planId: fail.planId,
      stepId: fail.steps[0],
      result: { sources: [] },
      confidence: 0.2,
      sessionId: 's-fail',
    });
    expect(failed.answer.data).toEqual({ submitted: true, planStatus: 'failed' });
    expect(events(failed.rows)).toEqual([
      {
        type: 'step_completed',
        planId: fail.planId,
        stepId: fail.steps[0],
        sessionId: 's-fail',
        details: {
          stepOrder: 1,
          confidence: 0.2,
          via: 'result',
          branch: { conditionId: failCondition, action: 'fail', targetStepId: null, skippedStepIds: [] },
        },
      },
      {
        type: 'plan_status_changed',
        planId: fail.planId,
        stepId: null,
        sessionId: 's-fail',
        details: { from: 'executing', to: 'failed', cause: 'branch_condition', conditionId: failCondition },
      },
    ]);
    await expectSameTransaction(failed.rows, 'research_plans', fail.planId);
  });
});

describe('modify_plan', () => {
  let planId: string;
  let steps: string[];

  beforeAll(async () => {
    ({ planId, steps } = await newPlan(3));
    await ok('get_next_step', { planId });
  });

  it('add_steps writes plan_modified (steps_added) with the new steps and their orders', async () => {
    const { answer, rows } = await audited('modify_plan', {
      planId,
      action: 'add_steps',
      steps: [{ stepType: 'critique', instructions: 'Critique', insertAfterOrder: 1 }],
      modificationRationale: 'needs a critique',
      sessionId: 's-modify',
    });
    const added = answer.data.steps.find((s: { instructions: string }) => s.instructions === 'Critique');
    expect(added.stepOrder).toBe(2);
    expect(events(rows)).toEqual([
      {
        type: 'plan_modified',
        planId,
        stepId: null,
        sessionId: 's-modify',
        details: {
          change: 'steps_added',
          steps: [{ stepId: added.stepId, stepOrder: 2, stepType: 'critique' }],
          rationale: 'needs a critique',
        },
      },
    ]);
    await expectSameTransaction(rows, 'research_plans', planId);
    steps = await stepIdsOf(planId);
  });

  it('reorder_steps writes plan_modified (steps_reordered) with the order before and after', async () => {
    const order = [steps[0]!, steps[3]!, steps[1]!, steps[2]!];
    const { rows } = await audited('modify_plan', { planId, action: 'reorder_steps', stepOrder: order });
    expect(events(rows)).toEqual([
      {
        type: 'plan_modified',
        planId,
        stepId: null,
        sessionId: null,
        details: { change: 'steps_reordered', previousStepIds: steps, stepIds: order, rationale: null },
      },
    ]);
    await expectSameTransaction(rows, 'research_plans', planId);
    steps = order;
  });

  it('update_step_instructions writes plan_modified (instructions_updated) with the old and new text', async () => {
    const { rows } = await audited('modify_plan', {
      planId,
      action: 'update_step_instructions',
      stepId: steps[1],
      updatedInstructions: 'Step 3, sharper',
      modificationRationale: 'clarity',
    });
    expect(events(rows)).toEqual([
      {
        type: 'plan_modified',
        planId,
        stepId: steps[1],
        sessionId: null,
        details: {
          change: 'instructions_updated',
          previousInstructions: 'Step 3',
          instructions: 'Step 3, sharper',
          rationale: 'clarity',
        },
      },
    ]);
    await expectSameTransaction(rows, 'plan_steps', steps[1]!);
  });

  it('remove_step writes plan_modified (step_removed) about the removed step', async () => {
    const removed = steps[2]!;
    const { rows } = await audited('modify_plan', {
      planId,
      action: 'remove_step',
      stepId: removed,
      modificationRationale: 'not needed',
    });
    expect(events(rows)).toEqual([
      {
        type: 'plan_modified',
        planId,
        stepId: removed,
        sessionId: null,
        details: { change: 'step_removed', stepOrder: 3, droppedConditionIds: [], rationale: 'not needed' },
      },
    ]);
    await expectSameTransaction(rows, 'research_plans', planId);
    steps = await stepIdsOf(planId);
  });

  it('remove_step lists the branching conditions that went with the step, and deletes them in the same transaction', async () => {
    const other = await newPlan(3, {
      branchingConditions: [
        { afterStepOrder: 2, conditionExpression: 'confidence > 0.9', ifTrueAction: 'continue' },
        {
          afterStepOrder: 1,
          conditionExpression: 'confidence < 0.2',
          ifTrueAction: 'skip_to',
          actionParams: { targetStepOrder: 2 },
        },
        { afterStepOrder: 1, conditionExpression: 'confidence < 0.1', ifTrueAction: 'fail' },
      ],
    });
    const [attached, targeting, kept] = await conditionIdsOf(other.planId);
    const { rows } = await audited('modify_plan', {
      planId: other.planId,
      action: 'remove_step',
      stepId: other.steps[1],
    });
    expect(events(rows)).toEqual([
      {
        type: 'plan_modified',
        planId: other.planId,
        stepId: other.steps[1],
        sessionId: null,
        details: { change: 'step_removed', stepOrder: 2, droppedConditionIds: [attached, targeting], rationale: null },
      },
    ]);
    expect(await conditionIdsOf(other.planId)).toEqual([kept]);
    await expectSameTransaction(rows, 'plan_steps', other.steps[2]!);
  });

  it('fail_step writes plan_modified (step_failed) and step_failed, and the completion it causes', async () => {
    // Left: step 1 in progress, steps 2 and 3 pending.
    await ok('submit_step_result', { planId, stepId: steps[0], result: { ok: true } });
    await ok('submit_step_result', { planId, stepId: steps[1], result: { ok: true } });
    const { answer, rows } = await audited('modify_plan', {
      planId,
      action: 'fail_step',
      stepId: steps[2],
      reason: 'source gone',
      sessionId: 's-fail-step',
    });
    expect(answer.data.planStatus).toBe('completed');
    expect(events(rows)).toEqual([
      {
        type: 'plan_modified',
        planId,
        stepId: steps[2],
        sessionId: 's-fail-step',
        details: { change: 'step_failed', reason: 'source gone', rationale: null },
      },
      {
        type: 'step_failed',
        planId,
        stepId: steps[2],
        sessionId: 's-fail-step',
        details: { stepOrder: 3, reason: 'source gone', via: 'modify_plan' },
      },
      {
        type: 'plan_status_changed',
        planId,
        stepId: null,
        sessionId: 's-fail-step',
        details: { from: 'executing', to: 'completed', cause: 'fail_step' },
      },
    ]);
    await expectSameTransaction(rows, 'research_plans', planId);
  });

  it('writes nothing when an action is refused', async () => {
    const other = await newPlan(2);
    await ok('get_next_step', { planId: other.planId });
    await expectRefusedWithoutTrace(
      'modify_plan',
      { planId: other.planId, action: 'remove_step', stepId: other.steps[0] },
      'STEP_STATE_CONFLICT',
    );
    await expectRefusedWithoutTrace(
      'modify_plan',
      { planId: other.planId, action: 'reorder_steps', stepOrder: [other.steps[0]] },
      'INVALID_REORDER',
    );
    await expectRefusedWithoutTrace(
      'modify_plan',
      { planId, action: 'add_steps', steps: [{ stepType: 'search', instructions: 'too late' }] },
      'PLAN_STATE_CONFLICT',
    );
  });
});

describe('request_user_review and submit_user_decision', () => {
  async function awaitingReview(sessionId?: string) {
    const plan = await newPlan(2);
    await ok('get_next_step', { planId: plan.planId });
    const requested = await audited('request_user_review', {
      planId: plan.planId,
      stepId: plan.steps[0],
      summary: 'Look',
      questions: ['Good?'],
      ...(sessionId ? { sessionId } : {}),
    });
    return { ...plan, requested };
  }

  it('request_user_review writes user_reviewed (requested) and the move to awaiting_review', async () => {
    const { planId, steps, requested } = await awaitingReview('s-review');
    expect(events(requested.rows)).toEqual([
      {
        type: 'user_reviewed',
        planId,
        stepId: steps[0],
        sessionId: 's-review',
        details: { phase: 'requested', summary: 'Look', questions: ['Good?'] },
      },
      {
        type: 'plan_status_changed',
        planId,
        stepId: null,
        sessionId: 's-review',
        details: { from: 'executing', to: 'awaiting_review', cause: 'request_review' },
      },
    ]);
    await expectSameTransaction(requested.rows, 'research_plans', planId);
    await expectSameTransaction(requested.rows, 'user_reviews', requested.answer.data.reviewId);
  });

  it.each([
    {
      decision: 'approve',
      feedback: undefined,
      stepEvent: { type: 'step_completed', details: { stepOrder: 1, confidence: null, via: 'review', branch: null } },
      to: 'executing',
    },
    {
      decision: 'reject',
      feedback: 'Wrong sources',
      stepEvent: { type: 'step_failed', details: { stepOrder: 1, reason: 'Wrong sources', via: 'review' } },
      to: 'failed',
    },
    { decision: 'modify', feedback: 'Use 2024 data', stepEvent: undefined, to: 'executing' },
    { decision: 'skip', feedback: undefined, stepEvent: undefined, to: 'executing' },
  ])(
    'submit_user_decision($decision) writes user_reviewed (decided), its step event and the status change',
    async ({ decision, feedback, stepEvent, to }) => {
      const { planId, steps } = await awaitingReview();
      const { answer, rows } = await audited('submit_user_decision', {
        planId,
        stepId: steps[0],
        decision,
        sessionId: 's-decide',
        ...(feedback ? { feedback } : {}),
      });
      expect(events(rows)).toEqual([
        {
          type: 'user_reviewed',
          planId,
          stepId: steps[0],
          sessionId: 's-decide',
          details: { phase: 'decided', decision, feedback: feedback ?? null },
        },
        ...(stepEvent ? [{ ...stepEvent, planId, stepId: steps[0], sessionId: 's-decide' }] : []),
        {
          type: 'plan_status_changed',
          planId,
          stepId: null,
          sessionId: 's-decide',
          details: { from: 'awaiting_review', to, cause: 'decide_review' },
        },
      ]);
      await expectSameTransaction(rows, 'research_plans', planId);
      await expectSameTransaction(rows, 'user_reviews', answer.data.reviewId);
    },
  );

  it('writes nothing when a review or a decision is refused', async () => {
    const { planId, steps } = await awaitingReview();
    await expectRefusedWithoutTrace(
      'request_user_review',
      { planId, stepId: steps[1], summary: 'pending step' },
      'STEP_STATE_CONFLICT',
    );
    await expectRefusedWithoutTrace(
      'submit_user_decision',
      { planId, stepId: steps[1], decision: 'approve' },
      'STEP_STATE_CONFLICT',
    );
    await expectRefusedWithoutTrace(
      'submit_user_decision',
      { planId, stepId: steps[0], decision: 'modify' },
      'INVALID_ARGUMENT',
    );
  });
});

describe('get_research_context, submit_research_feedback, log_skill_execution', () => {
  it('get_research_context with a sessionId writes one session_resumed row', async () => {
    const { planId } = await newPlan(1);
    const { answer, rows } = await audited('get_research_context', { planId, sessionId: 's-resume' });
    expect(events(rows)).toEqual([
      { type: 'session_resumed', planId, stepId: null, sessionId: 's-resume', details: {} },
    ]);
    // The answer already shows it.
    expect(answer.data.recentAuditEvents).toContainEqual(
      expect.objectContaining({ eventId: Number(rows[0]!.id), eventType: 'session_resumed', sessionId: 's-resume' }),
    );
  });

  it('submit_research_feedback writes feedback_recorded with the stored feedback, or nothing when refused', async () => {
    const { planId } = await newPlan(1);
    const { answer, rows } = await audited('submit_research_feedback', {
      planId,
      feedbackType: 'closing',
      userSatisfaction: 5,
      sessionId: 's-feedback',
    });
    expect(events(rows)).toEqual([
      {
        type: 'feedback_recorded',
        planId,
        stepId: null,
        sessionId: 's-feedback',
        details: { feedbackId: answer.data.feedbackId, feedbackType: 'closing' },
      },
    ]);
    await expectSameTransaction(rows, 'research_feedback', answer.data.feedbackId);
    await expectRefusedWithoutTrace(
      'submit_research_feedback',
      { planId, feedbackType: 'closing', userSatisfaction: 9 },
      'INVALID_ARGUMENT',
    );
    await expectRefusedWithoutTrace(
      'submit_research_feedback',
      { planId: crypto.randomUUID(), feedbackType: 'initial' },
      'PLAN_NOT_FOUND',
    );
  });

  it('log_skill_execution is not a plan event: it writes no audit row, even when it names a plan', async () => {
    const { planId } = await newPlan(1);
    const started = await audited('log_skill_execution', {
      skillName: 'research',
      status: 'started',
      planId,
      sessionId: 's-skill',
    });
    expect(started.rows).toEqual([]);
    const finished = await audited('log_skill_execution', {
      executionId: started.answer.data.executionId,
      skillName: 'research',
      status: 'completed',
    });
    expect(finished.answer.isError).toBe(false);
    expect(finished.rows).toEqual([]);
  });
});

describe('reads', () => {
  it('get_plan_status, list_active_plans, get_step_context and get_research_context without a session write nothing at all', async () => {
    const { planId, steps } = await newPlan(3);
    await ok('get_next_step', { planId });
    await ok('submit_step_result', { planId, stepId: steps[0], result: { summary: 'first' } });
    await ok('get_next_step', { planId });
    // Step 2 has been in progress for an hour: the plan reads as stalled, and reading says so without writing it.
    await sql`update plan.plan_steps set started_at = now() - interval '1 hour' where id = ${steps[1]}::uuid`.execute(
      db(),
    );
    const before = await planSnapshot(db());
    expect(await ok('get_plan_status', { planId })).toMatchObject({ status: 'stalled', stalled: true });
    const answers = await Promise.all([
      call('get_plan_status', { planId }),
      call('get_plan_status', { planId, waitSeconds: 1 }),
      call('list_active_plans', {}),
      call('list_active_plans', { limit: 1 }),
      call('get_step_context', { planId, stepId: steps[1] }),
      call('get_step_context', { planId, stepId: steps[2], priorStepIds: [steps[0]] }),
      call('get_research_context', { planId }),
    ]);
    expect(answers.filter((a) => a.isError)).toEqual([]);
    expect(await planSnapshot(db())).toEqual(before);
  });
});

describe('the log itself', () => {
  it('refuses UPDATE, DELETE and TRUNCATE, even for the admin connection and even when no row matches', async () => {
    const { planId } = await newPlan(1);
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
    const { planId } = await newPlan(1);
    const orgId = (await gateway.admin.findOrg('acme'))!.id;
    for (const statement of [
      sql`update plan.plan_audit_log set session_id = 'forged' where plan_id = ${planId}::uuid`,
      sql`delete from plan.plan_audit_log where plan_id = ${planId}::uuid`,
    ]) {
      await expect(
        gateway.database.app.transaction().execute(async (trx) => {
          await sql`select set_config('app.org_id', ${orgId}, true)`.execute(trx);
          await statement.execute(trx);
        }),
      ).rejects.toThrow(/append-only|permission denied/);
    }
    expect((await auditRows(db(), { planId })).every((r) => r.sessionId === null)).toBe(true);
  });

  it('is written in the same transaction as the change: when the audit row cannot be written, the change is rolled back', async () => {
    const { planId, steps } = await newPlan(2);
    await ok('get_next_step', { planId });
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
      const answer = await call('submit_step_result', {
        planId,
        stepId: steps[0],
        result: { summary: 'lost' },
        idempotencyKey: 'k-rollback',
      });
      expect(answer).toMatchObject({ isError: true, data: { error: { code: 'INTERNAL' } } });
      // The step update, the plan's updated_at and the idempotency record were all rolled back.
      expect(await planSnapshot(db())).toEqual(before);
    } finally {
      await sql`drop trigger test_refuse_audit on plan.plan_audit_log; drop function plan.test_refuse_audit();`.execute(
        db(),
      );
    }
    const retried = await audited('submit_step_result', {
      planId,
      stepId: steps[0],
      result: { summary: 'kept' },
      idempotencyKey: 'k-rollback',
    });
    expect(retried.answer.data).toEqual({ submitted: true, planStatus: 'executing' });
    expect(events(retried.rows).map((e) => e.type)).toEqual(['step_completed']);
  });
});
