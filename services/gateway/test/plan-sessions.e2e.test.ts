import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { type Kysely, sql } from 'kysely';
import { connectClient, startTestGateway } from './harness.js';
import { auditRows, type CallTool, expectToolError, sleep, stepsOf, toolsOf } from './plan-workflow-helpers.js';

// Issue 3: what spans sessions — finding active plans, tracking skill runs, feedback, and
// resuming a plan with get_research_context — end to end through the gateway.

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let admin: Kysely<unknown>;
const clients: Client[] = [];
let call: CallTool;
let ok: CallTool;

beforeAll(async () => {
  gateway = await startTestGateway();
  admin = gateway.database.admin as Kysely<unknown>;
  ({ call, ok } = await clientFor(gateway.token));
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await gateway?.close();
});

async function clientFor(token: string) {
  const client = await connectClient(gateway.url, token, 'modern');
  clients.push(client);
  return toolsOf(client);
}

/** A member of a new org of its own, so what it lists is exactly what it created. */
async function newOrg(slug: string) {
  const org = await gateway.admin.createOrg({ slug });
  await gateway.admin.addUser({ email: `lead@${slug}.test`, orgSlug: slug, name: 'Lead' });
  const { token } = await gateway.admin.createToken({ orgSlug: slug, email: `lead@${slug}.test` });
  return { orgId: org.id, ...(await clientFor(token)) };
}

const missing = '00000000-0000-4000-8000-000000000000';

describe('list_active_plans', () => {
  it('pages through the unfinished plans, most recently updated first', async () => {
    const org = await newOrg('lister');
    const create = async (name: string, steps: string[], extra: Record<string, unknown> = {}) => {
      const { planId } = (
        await org.ok('create_research_plan', { name, researchQuestion: `${name}?`, steps: stepsOf(...steps), ...extra })
      ).data;
      await sleep(5); // distinct updated_at, so the order below is the order of events
      return planId as string;
    };
    const p1 = await create('P1', ['search', 'analyze']);
    const p2 = await create('P2', ['search']);
    const p3 = await create('P3', ['search', 'analyze'], {
      branchingConditions: [{ afterStepOrder: 1, conditionExpression: 'confidence < 0.5', ifTrueAction: 'fail' }],
    });
    const p4 = await create('P4', ['search']);
    const p5 = await create('P5', ['search', 'analyze', 'synthesize', 'critique']);

    await org.ok('submit_step_result', {
      planId: p2,
      stepId: (await org.ok('get_next_step', { planId: p2 })).data.step.stepId,
      result: {},
    }); // completed
    await org.ok('submit_step_result', {
      planId: p3,
      stepId: (await org.ok('get_next_step', { planId: p3 })).data.step.stepId,
      result: {},
      confidence: 0.1,
    }); // failed
    await sleep(5);
    await org.ok('submit_step_result', {
      planId: p1,
      stepId: (await org.ok('get_next_step', { planId: p1 })).data.step.stepId,
      result: {},
    }); // p1 touched last

    const first = await org.ok('list_active_plans', { limit: 2 });
    expect(first.data.activePlans).toBe(3);
    expect(first.data.plans.map((p: { name: string }) => p.name)).toEqual(['P1', 'P5']);
    expect(first.data.plans[0]).toEqual({
      planId: p1,
      name: 'P1',
      researchQuestion: 'P1?',
      status: 'executing',
      progress: 50,
      totalSteps: 2,
      completedSteps: 1,
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(first.data.plans[1]).toMatchObject({
      planId: p5,
      status: 'planning',
      progress: 0,
      totalSteps: 4,
      completedSteps: 0,
    });
    expect(first.data.nextCursor).toEqual(expect.any(String));

    const second = await org.ok('list_active_plans', { limit: 2, cursor: first.data.nextCursor });
    expect(second.data).toMatchObject({ activePlans: 3, plans: [{ planId: p4, name: 'P4' }] });
    expect(second.data.nextCursor).toBeUndefined();

    const all = await org.ok('list_active_plans', {});
    expect(all.data.plans.map((p: { planId: string }) => p.planId)).toEqual([p1, p5, p4]);
    expect(all.data.nextCursor).toBeUndefined();

    // Another org's plans never show.
    const mine = await ok('list_active_plans', {});
    expect(mine.data.plans.map((p: { planId: string }) => p.planId)).not.toContain(p1);
  });

  it('refuses a cursor it did not issue', async () => {
    expectToolError(
      await call('list_active_plans', { cursor: 'not-a-cursor' }),
      'INVALID_CURSOR',
      /`cursor` is not a cursor returned by list_active_plans/,
    );
    const forged = Buffer.from(JSON.stringify({ u: 'yesterday', i: missing })).toString('base64url');
    expectToolError(await call('list_active_plans', { cursor: forged }), 'INVALID_CURSOR');
    expectToolError(await call('list_active_plans', { limit: 0 }), 'INVALID_ARGUMENT', /limit/, />= 1/);
    expectToolError(await call('list_active_plans', { limit: 101 }), 'INVALID_ARGUMENT', /limit/, /<= 100/);
  });
});

describe('log_skill_execution', () => {
  async function execution(id: string) {
    const { rows } = await sql<{
      status: string;
      plan_id: string | null;
      metadata: unknown;
      completed_at: Date | null;
      duration_ms: string | null;
      error_message: string | null;
    }>`
      select status, plan_id, metadata, completed_at, duration_ms, error_message from plan.skill_executions where id = ${id}
    `.execute(admin);
    return rows[0]!;
  }

  it('creates a run, merges metadata on update, links the plan of the same session and times the run when it ends', async () => {
    const started = await ok('log_skill_execution', {
      skillName: 'research-deep',
      status: 'started',
      sessionId: 'deep-1',
      metadata: { depth: 3, sources: ['a'] },
    });
    expect(started.data).toEqual({
      executionId: expect.any(String),
      skillName: 'research-deep',
      status: 'started',
      stored: true,
    });
    const { executionId } = started.data;

    const progressed = await ok('log_skill_execution', {
      executionId,
      skillName: 'research-deep',
      status: 'executing',
      metadata: { sources: ['a', 'b'], phase: 'search' },
    });
    expect(progressed.data).toEqual({ executionId, skillName: 'research-deep', status: 'executing', stored: true });
    expect((await execution(executionId)).metadata).toEqual({ depth: 3, sources: ['a', 'b'], phase: 'search' });

    const { planId } = (
      await ok('create_research_plan', {
        name: 'Deep',
        researchQuestion: 'How deep?',
        steps: stepsOf('search'),
        sessionId: 'deep-1',
      })
    ).data;
    expect((await execution(executionId)).plan_id).toBe(planId);

    await sleep(40);
    await ok('log_skill_execution', { executionId, skillName: 'research-deep', status: 'completed' });
    const done = await execution(executionId);
    expect(done).toMatchObject({ status: 'completed', completed_at: expect.any(Date) });
    expect(Number(done.duration_ms)).toBeGreaterThanOrEqual(40);

    const context = await ok('get_research_context', { planId });
    expect(context.data.skillExecution).toEqual({
      executionId,
      skillName: 'research-deep',
      status: 'completed',
      planId,
      sessionId: 'deep-1',
      metadata: { depth: 3, sources: ['a', 'b'], phase: 'search' },
      startedAt: expect.any(String),
      completedAt: expect.any(String),
      durationMs: Number(done.duration_ms),
    });

    // A finished run stays finished; repeating its final status is harmless.
    expectToolError(
      await call('log_skill_execution', { executionId, skillName: 'research-deep', status: 'executing' }),
      'SKILL_EXECUTION_FINISHED',
      /already completed/,
    );
    expect(
      (
        await ok('log_skill_execution', {
          executionId,
          skillName: 'research-deep',
          status: 'completed',
          metadata: { note: 'again' },
        })
      ).data.status,
    ).toBe('completed');
    expect((await execution(executionId)).completed_at).toEqual(done.completed_at);

    // Its session's next plan is not linked to a finished run.
    const later = (
      await ok('create_research_plan', {
        name: 'Later',
        researchQuestion: 'Again?',
        steps: stepsOf('search'),
        sessionId: 'deep-1',
      })
    ).data.planId;
    expect((await ok('get_research_context', { planId: later })).data.skillExecution).toBeUndefined();
  });

  it('records a failed run with its error message and duration', async () => {
    const { executionId } = (await ok('log_skill_execution', { skillName: 'research-scan', status: 'started' })).data;
    await ok('log_skill_execution', {
      executionId,
      skillName: 'research-scan',
      status: 'failed',
      errorMessage: 'Search backend down',
    });
    expect(await execution(executionId)).toMatchObject({
      status: 'failed',
      error_message: 'Search backend down',
      completed_at: expect.any(Date),
      duration_ms: expect.anything(),
    });
  });

  it('refuses an unknown run, another skill name for a run, and an unknown plan', async () => {
    expectToolError(
      await call('log_skill_execution', { executionId: missing, skillName: 'research', status: 'executing' }),
      'SKILL_EXECUTION_NOT_FOUND',
    );
    const { executionId } = (await ok('log_skill_execution', { skillName: 'research', status: 'started' })).data;
    expectToolError(
      await call('log_skill_execution', { executionId, skillName: 'research-deep', status: 'executing' }),
      'INVALID_ARGUMENT',
      /`skillName` must stay "research"/,
    );
    expectToolError(
      await call('log_skill_execution', { skillName: 'research', status: 'started', planId: missing }),
      'PLAN_NOT_FOUND',
    );
  });
});

describe('submit_research_feedback', () => {
  it('records initial and closing feedback, each with an audit row', async () => {
    const { planId } = (
      await ok('create_research_plan', {
        name: 'Feedback',
        researchQuestion: 'Was it useful?',
        steps: stepsOf('search'),
      })
    ).data;
    const initial = await ok('submit_research_feedback', {
      planId,
      feedbackType: 'initial',
      userSatisfaction: 4,
      userFeedbackSummary: 'Good plan.',
      sessionId: 'fb',
    });
    expect(initial.data).toEqual({ feedbackId: expect.any(String), feedbackType: 'initial', stored: true });

    await ok('submit_step_result', {
      planId,
      stepId: (await ok('get_next_step', { planId })).data.step.stepId,
      result: {},
    });
    const closing = await ok('submit_research_feedback', {
      planId,
      feedbackType: 'closing',
      userSatisfaction: 5,
      improvementSuggestions: 'More charts.',
      followUpRequested: true,
      followUpDetails: 'Sodium-ion next.',
    });
    expect(closing.data).toMatchObject({ feedbackType: 'closing', stored: true });

    const { rows } = await sql<Record<string, unknown>>`
      select id, feedback_type, user_satisfaction, user_feedback_summary, improvement_suggestions, follow_up_requested, follow_up_details, session_id
      from plan.research_feedback where plan_id = ${planId} order by created_at
    `.execute(admin);
    expect(rows).toEqual([
      {
        id: initial.data.feedbackId,
        feedback_type: 'initial',
        user_satisfaction: 4,
        user_feedback_summary: 'Good plan.',
        improvement_suggestions: null,
        follow_up_requested: null,
        follow_up_details: null,
        session_id: 'fb',
      },
      {
        id: closing.data.feedbackId,
        feedback_type: 'closing',
        user_satisfaction: 5,
        user_feedback_summary: null,
        improvement_suggestions: 'More charts.',
        follow_up_requested: true,
        follow_up_details: 'Sodium-ion next.',
        session_id: null,
      },
    ]);
    const recorded = (await auditRows(admin, planId)).filter((r) => r.event_type === 'feedback_recorded');
    expect(recorded.map((r) => [r.details.feedbackId, r.details.feedbackType, r.session_id])).toEqual([
      [initial.data.feedbackId, 'initial', 'fb'],
      [closing.data.feedbackId, 'closing', null],
    ]);
  });

  it('refuses an unknown plan and an out-of-range satisfaction', async () => {
    expectToolError(
      await call('submit_research_feedback', { planId: missing, feedbackType: 'initial' }),
      'PLAN_NOT_FOUND',
    );
    const { planId } = (
      await ok('create_research_plan', { name: 'F', researchQuestion: 'F?', steps: stepsOf('search') })
    ).data;
    expectToolError(
      await call('submit_research_feedback', { planId, feedbackType: 'initial', userSatisfaction: 6 }),
      'INVALID_ARGUMENT',
      /userSatisfaction/,
      /<= 5/,
    );
  });
});

describe('resuming a plan with get_research_context', () => {
  it('returns the plan, its steps with their results, the latest audit events, the skill run and the org preferences', async () => {
    const org = await newOrg('resumer');
    await sql`
      insert into plan.output_preferences (org_id, output_media_type, output_formatting_instructions)
      values (${org.orgId}, 'markdown', 'Use H2 headings.')
    `.execute(admin);
    const { executionId } = (
      await org.ok('log_skill_execution', { skillName: 'research', status: 'executing', sessionId: 'first-session' })
    ).data;
    const created = await org.ok('create_research_plan', {
      name: 'Resumable',
      researchQuestion: 'Can another session pick this up?',
      steps: stepsOf('search', 'extract', 'analyze', 'synthesize'),
      sessionId: 'first-session',
      planDesignRationale: 'Breadth first, then depth.',
      outputFormattingNotes: 'One page.',
    });
    const { planId } = created.data;
    const first = (await org.ok('get_next_step', { planId, sessionId: 'first-session' })).data.step.stepId;
    await org.ok('submit_step_result', {
      planId,
      stepId: first,
      result: { sources: { count: 6 }, urls: ['https://example.org/a'] },
      confidence: 0.75,
      stepExecutionReport: 'Searched three databases.',
      outputFormattingNotes: 'Table of sources.',
      sessionId: 'first-session',
    });
    const second = (await org.ok('get_next_step', { planId })).data.step.stepId;
    await org.ok('modify_plan', { planId, action: 'fail_step', stepId: second, reason: 'Paywalled' });

    // Without a sessionId nothing is recorded.
    const before = (await auditRows(admin, planId)).length;
    const quiet = await org.ok('get_research_context', { planId });
    expect(await auditRows(admin, planId)).toHaveLength(before);
    expect(quiet.data.recentAuditEvents.map((e: { eventType: string }) => e.eventType)).not.toContain(
      'session_resumed',
    );

    const context = await org.ok('get_research_context', { planId, sessionId: 'second-session' });
    expect(context.data.plan).toEqual({
      planId,
      name: 'Resumable',
      researchQuestion: 'Can another session pick this up?',
      status: 'executing',
      progress: 25,
      totalSteps: 4,
      planDesignRationale: 'Breadth first, then depth.',
      planFormattingNotes: 'One page.',
      sessionId: 'first-session',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(context.data.steps.map((s: { stepOrder: number; status: string }) => [s.stepOrder, s.status])).toEqual([
      [1, 'completed'],
      [2, 'failed'],
      [3, 'pending'],
      [4, 'pending'],
    ]);
    expect(context.data.steps[0]).toMatchObject({
      stepId: first,
      stepType: 'search',
      instructions: 'Step 1: search',
      result: { sources: { count: 6 }, urls: ['https://example.org/a'] },
      confidence: 0.75,
      stepExecutionReport: 'Searched three databases.',
      outputFormattingNotes: 'Table of sources.',
      startedAt: expect.any(String),
      completedAt: expect.any(String),
    });
    expect(context.data.steps[1]).toMatchObject({ stepId: second, failureReason: 'Paywalled' });
    expect(context.data.steps[2].result).toBeUndefined();
    expect(context.data.artifacts).toEqual([]);
    expect(context.data.skillExecution).toMatchObject({
      executionId,
      status: 'executing',
      planId,
      sessionId: 'first-session',
    });
    expect(context.data.outputPreferences).toEqual({
      outputMediaType: 'markdown',
      outputFormattingInstructions: 'Use H2 headings.',
    });

    // The resume itself is on record, and is the newest event.
    const audit = await auditRows(admin, planId);
    expect(audit).toHaveLength(before + 1);
    expect(audit.at(-1)).toMatchObject({ event_type: 'session_resumed', session_id: 'second-session', step_id: null });
    const events = context.data.recentAuditEvents as {
      eventId: number;
      eventType: string;
      sessionId?: string;
      occurredAt: string;
    }[];
    expect(events[0]).toMatchObject({
      eventType: 'session_resumed',
      sessionId: 'second-session',
      occurredAt: expect.any(String),
    });
    expect(events.map((e) => e.eventType)).toEqual(audit.map((r) => r.event_type).reverse());
  });

  it('returns the 20 most recent audit events, newest first', async () => {
    const { planId } = (
      await ok('create_research_plan', {
        name: 'Long',
        researchQuestion: 'Many events?',
        steps: stepsOf(...Array(12).fill('search')),
      })
    ).data;
    const steps = (await ok('get_plan_status', { planId })).data.pendingSteps as { stepId: string }[];
    for (const step of steps) await ok('submit_step_result', { planId, stepId: step.stepId, result: {} });
    const audit = await auditRows(admin, planId);
    expect(audit.length).toBeGreaterThan(20);

    const context = await ok('get_research_context', { planId });
    const ids = context.data.recentAuditEvents.map((e: { eventId: number }) => e.eventId) as number[];
    expect(ids).toHaveLength(20);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    expect(context.data.recentAuditEvents[0]).toMatchObject({
      eventType: 'plan_status_changed',
      details: { to: 'completed' },
    });
    expect(context.data.recentAuditEvents.map((e: { eventType: string }) => e.eventType)).toEqual(
      audit
        .slice(-20)
        .map((r) => r.event_type)
        .reverse(),
    );
  });

  it('answers an unknown plan with not-found', async () => {
    expectToolError(
      await call('get_research_context', { planId: missing, sessionId: 'ghost' }),
      'PLAN_NOT_FOUND',
      new RegExp(missing),
    );
  });
});
