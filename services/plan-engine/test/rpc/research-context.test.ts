import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import {
  AuditEventType,
  expectRefusal,
  FeedbackType,
  MISSING,
  ModifyPlanAction,
  OutputMediaType,
  type PlanCaller,
  PlanStatus,
  SkillExecutionStatus,
  StepStatus,
  StepType,
  stepsOf,
  UserSatisfaction,
} from '../support/plan-api.js';
import { startTestPlanEngine, type TestPlanEngine } from '../support/plan-engine.js';
import { auditRows } from '../support/plan-rows.js';

// What spans sessions: feedback on a plan, and resuming a plan with get_research_context (the
// plan, its steps with their results, the latest audit events, the skill run, the org's
// output preferences), the resume itself on record.

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

const eventName = (type: number) => AuditEventType[type]!.slice('AUDIT_EVENT_TYPE_'.length).toLowerCase();

describe('submit_research_feedback', () => {
  it('records initial and closing feedback, each with an audit row', async () => {
    const { planId } = await api.call('createResearchPlan', {
      name: 'Feedback',
      researchQuestion: 'Was it useful?',
      steps: stepsOf('search'),
    });
    const initial = await api.call('submitResearchFeedback', {
      planId,
      feedbackType: FeedbackType.FEEDBACK_TYPE_INITIAL,
      userSatisfaction: UserSatisfaction.USER_SATISFACTION_NEUTRAL,
      userFeedbackSummary: 'Good plan.',
      sessionId: 'fb',
    });
    expect(initial).toEqual({
      feedbackId: expect.any(String),
      feedbackType: FeedbackType.FEEDBACK_TYPE_INITIAL,
      stored: true,
    });

    await api.call('submitStepResult', {
      planId,
      stepId: (await api.call('getNextStep', { planId })).step!.stepId,
      result: {},
    });
    const closing = await api.call('submitResearchFeedback', {
      planId,
      feedbackType: FeedbackType.FEEDBACK_TYPE_CLOSING,
      userSatisfaction: UserSatisfaction.USER_SATISFACTION_POSITIVE,
      improvementSuggestions: 'More charts.',
      followUpRequested: true,
      followUpDetails: 'Sodium-ion next.',
    });
    expect(closing).toMatchObject({ feedbackType: FeedbackType.FEEDBACK_TYPE_CLOSING, stored: true });

    const { rows } = await sql<Record<string, unknown>>`
      select id, feedback_type, user_satisfaction, user_feedback_summary, improvement_suggestions, follow_up_requested, follow_up_details, session_id
      from plan.research_feedback where plan_id = ${planId} order by created_at
    `.execute(admin());
    expect(rows).toEqual([
      {
        id: initial.feedbackId,
        feedback_type: 'initial',
        user_satisfaction: 'neutral',
        user_feedback_summary: 'Good plan.',
        improvement_suggestions: null,
        follow_up_requested: null,
        follow_up_details: null,
        session_id: 'fb',
      },
      {
        id: closing.feedbackId,
        feedback_type: 'closing',
        user_satisfaction: 'positive',
        user_feedback_summary: null,
        improvement_suggestions: 'More charts.',
        follow_up_requested: true,
        follow_up_details: 'Sodium-ion next.',
        session_id: null,
      },
    ]);
    const recorded = (await auditRows(admin(), { planId })).filter((r) => r.eventType === 'feedback_recorded');
    expect(recorded.map((r) => [r.details.feedbackId, r.details.feedbackType, r.sessionId])).toEqual([
      [initial.feedbackId, 'initial', 'fb'],
      [closing.feedbackId, 'closing', null],
    ]);
  });

  it('refuses an unknown plan and a missing feedback type', async () => {
    expectRefusal(
      await api.refusal('submitResearchFeedback', {
        planId: MISSING,
        feedbackType: FeedbackType.FEEDBACK_TYPE_INITIAL,
      }),
      'PLAN_NOT_FOUND',
    );
    const { planId } = await api.call('createResearchPlan', {
      name: 'F',
      researchQuestion: 'F?',
      steps: stepsOf('search'),
    });
    expectRefusal(await api.refusal('submitResearchFeedback', { planId }), 'INVALID_ARGUMENT', /`feedbackType`/);
  });
});

describe('resuming a plan with get_research_context', () => {
  it('returns the plan, its steps with their results, the latest audit events, the skill run and the org preferences', async () => {
    const org = engine.newOrg();
    await sql`
      insert into plan.output_preferences (org_id, output_media_type, output_formatting_instructions)
      values (${org.orgId}, 'markdown', 'Use H2 headings.')
    `.execute(admin());
    const { executionId } = await org.call('logSkillExecution', {
      skillName: 'research',
      status: SkillExecutionStatus.SKILL_EXECUTION_STATUS_EXECUTING,
      sessionId: 'first-session',
    });
    const { planId } = await org.call('createResearchPlan', {
      name: 'Resumable',
      researchQuestion: 'Can another session pick this up?',
      steps: stepsOf('search', 'extract', 'analyze', 'synthesize'),
      sessionId: 'first-session',
      planDesignRationale: 'Breadth first, then depth.',
      outputFormattingNotes: 'One page.',
    });
    const first = (await org.call('getNextStep', { planId, sessionId: 'first-session' })).step!.stepId;
    await org.call('submitStepResult', {
      planId,
      stepId: first,
      result: { sources: { count: 6 }, urls: ['https://example.org/a'] },
      confidence: 0.75,
      stepExecutionReport: { thinking: 'Breadth first.', webSearches: [{ query: 'sodium-ion' }] },
      outputFormattingNotes: 'Table of sources.',
      sessionId: 'first-session',
    });
    const second = (await org.call('getNextStep', { planId })).step!.stepId;
    await org.call('modifyPlan', {
      planId,
      action: ModifyPlanAction.MODIFY_PLAN_ACTION_FAIL_STEP,
      stepId: second,
      reason: 'Paywalled',
    });

    // Without a sessionId nothing is recorded.
    const before = (await auditRows(admin(), { planId })).length;
    const quiet = await org.call('getResearchContext', { planId });
    expect(await auditRows(admin(), { planId })).toHaveLength(before);
    expect(quiet.recentAuditEvents.map((e) => e.eventType)).not.toContain(
      AuditEventType.AUDIT_EVENT_TYPE_SESSION_RESUMED,
    );

    const context = await org.call('getResearchContext', { planId, sessionId: 'second-session' });
    expect(context.plan).toEqual({
      id: planId,
      name: 'Resumable',
      researchQuestion: 'Can another session pick this up?',
      status: PlanStatus.PLAN_STATUS_EXECUTING,
      progress: 25,
      totalSteps: 4,
      planDesignRationale: 'Breadth first, then depth.',
      planFormattingNotes: 'One page.',
      sessionId: 'first-session',
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
    });
    expect(context.steps.map((s) => [s.stepOrder, s.status])).toEqual([
      [1, StepStatus.STEP_STATUS_COMPLETED],
      [2, StepStatus.STEP_STATUS_FAILED],
      [3, StepStatus.STEP_STATUS_PENDING],
      [4, StepStatus.STEP_STATUS_PENDING],
    ]);
    expect(context.steps[0]).toMatchObject({
      stepId: first,
      stepType: StepType.STEP_TYPE_SEARCH,
      instructions: 'Step 1: search',
      result: { sources: { count: 6 }, urls: ['https://example.org/a'] },
      confidence: 0.75,
      stepExecutionReport: { thinking: 'Breadth first.', webSearches: [{ query: 'sodium-ion' }] },
      outputFormattingNotes: 'Table of sources.',
      startedAt: expect.any(Date),
      completedAt: expect.any(Date),
    });
    expect(context.steps[1]).toMatchObject({ stepId: second, failureReason: 'Paywalled' });
    expect(context.steps[2]!.result).toBeUndefined();
    expect(context.artifacts).toEqual([]);
    expect(context.skillExecution).toMatchObject({
      id: executionId,
      status: SkillExecutionStatus.SKILL_EXECUTION_STATUS_EXECUTING,
      planId,
      sessionId: 'first-session',
    });
    expect(context.outputPreferences).toEqual({
      outputMediaType: OutputMediaType.OUTPUT_MEDIA_TYPE_MARKDOWN,
      outputFormattingInstructions: 'Use H2 headings.',
      planFormattingNotes: 'One page.',
      stepFormattingNotes: [{ stepId: first, stepOrder: 1, notes: 'Table of sources.' }],
    });

    // The resume itself is on record, and is the newest event.
    const audit = await auditRows(admin(), { planId });
    expect(audit).toHaveLength(before + 1);
    expect(audit.at(-1)).toMatchObject({ eventType: 'session_resumed', sessionId: 'second-session', stepId: null });
    expect(context.recentAuditEvents[0]).toMatchObject({
      eventType: AuditEventType.AUDIT_EVENT_TYPE_SESSION_RESUMED,
      sessionId: 'second-session',
      createdAt: expect.any(Date),
    });
    expect(context.recentAuditEvents.map((e) => eventName(e.eventType))).toEqual(
      audit.map((r) => r.eventType).reverse(),
    );
  });

  it('returns the 20 most recent audit events, newest first', async () => {
    const { planId } = await api.call('createResearchPlan', {
      name: 'Long',
      researchQuestion: 'Many events?',
      steps: stepsOf(...Array<'search'>(12).fill('search')),
    });
    const steps = (await api.call('getPlanStatus', { planId })).pendingSteps;
    for (const step of steps) await api.call('submitStepResult', { planId, stepId: step.stepId, result: {} });
    const audit = await auditRows(admin(), { planId });
    expect(audit.length).toBeGreaterThan(20);

    const context = await api.call('getResearchContext', { planId });
    const ids = context.recentAuditEvents.map((e) => e.eventId);
    expect(ids).toHaveLength(20);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    expect(context.recentAuditEvents[0]).toMatchObject({
      eventType: AuditEventType.AUDIT_EVENT_TYPE_PLAN_STATUS_CHANGED,
      eventData: { to: 'completed' },
    });
    expect(context.recentAuditEvents.map((e) => eventName(e.eventType))).toEqual(
      audit
        .slice(-20)
        .map((r) => r.eventType)
        .reverse(),
    );
  });

  it('names audit event data as the public contract does, for rows written before too', async () => {
    const org = engine.newOrg();
    const { planId } = await org.call('createResearchPlan', {
      name: 'Named',
      researchQuestion: 'Q?',
      steps: stepsOf('search', 'analyze'),
    });
    // Rows written while plan_modified and user_reviewed named their action `change` / `phase`.
    await sql`
      insert into plan.plan_audit_log (org_id, plan_id, event_type, details) values
        (${org.orgId}, ${planId}, 'plan_modified', '{"change": "steps_added", "steps": [], "rationale": null}'),
        (${org.orgId}, ${planId}, 'user_reviewed', '{"phase": "requested", "summary": "S", "questions": []}')
    `.execute(admin());
    const context = await org.call('getResearchContext', { planId });
    expect(context.recentAuditEvents.map((e) => [eventName(e.eventType), e.eventData])).toEqual([
      ['user_reviewed', { action: 'review_requested', summary: 'S', questions: [] }],
      ['plan_modified', { action: 'add_steps', steps: [], rationale: null }],
      ['plan_modified', { action: 'created', stepCount: 2, conditionCount: 0, rationale: null }],
    ]);
  });

  it('answers an unknown plan with not-found', async () => {
    expectRefusal(
      await api.refusal('getResearchContext', { planId: MISSING, sessionId: 'ghost' }),
      'PLAN_NOT_FOUND',
      new RegExp(MISSING),
    );
  });
});
