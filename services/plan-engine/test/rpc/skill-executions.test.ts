import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import { expectRefusal, MISSING, type PlanCaller, SkillExecutionStatus, sleep, stepsOf } from '../support/plan-api.js';
import { startTestPlanEngine, type TestPlanEngine } from '../support/plan-engine.js';

// log_skill_execution: a skill run is started, updated (metadata merged), linked to the plan its
// session creates, and timed when it ends; a finished run stays finished.

let engine: TestPlanEngine;
let api: PlanCaller;

beforeAll(async () => {
  engine = await startTestPlanEngine();
  api = engine.newOrg();
});
afterAll(async () => {
  await engine?.close();
});

const { STARTED, EXECUTING, COMPLETED, FAILED } = {
  STARTED: SkillExecutionStatus.SKILL_EXECUTION_STATUS_STARTED,
  EXECUTING: SkillExecutionStatus.SKILL_EXECUTION_STATUS_EXECUTING,
  COMPLETED: SkillExecutionStatus.SKILL_EXECUTION_STATUS_COMPLETED,
  FAILED: SkillExecutionStatus.SKILL_EXECUTION_STATUS_FAILED,
};

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
  `.execute(engine.database.admin);
  return rows[0]!;
}

describe('log_skill_execution', () => {
  it('creates a run, merges metadata on update, links the plan of the same session and times the run when it ends', async () => {
    const started = await api.call('logSkillExecution', {
      skillName: 'research-deep',
      status: STARTED,
      sessionId: 'deep-1',
      metadata: { depth: 3, sources: ['a'] },
    });
    expect(started).toEqual({
      executionId: expect.any(String),
      skillName: 'research-deep',
      status: STARTED,
      stored: true,
    });
    const { executionId } = started;

    const progressed = await api.call('logSkillExecution', {
      executionId,
      skillName: 'research-deep',
      status: EXECUTING,
      metadata: { sources: ['a', 'b'], phase: 'search' },
    });
    expect(progressed).toEqual({ executionId, skillName: 'research-deep', status: EXECUTING, stored: true });
    expect((await execution(executionId)).metadata).toEqual({ depth: 3, sources: ['a', 'b'], phase: 'search' });

    const { planId } = await api.call('createResearchPlan', {
      name: 'Deep',
      researchQuestion: 'How deep?',
      steps: stepsOf('search'),
      sessionId: 'deep-1',
    });
    expect((await execution(executionId)).plan_id).toBe(planId);

    await sleep(40);
    await api.call('logSkillExecution', { executionId, skillName: 'research-deep', status: COMPLETED });
    const done = await execution(executionId);
    expect(done).toMatchObject({ status: 'completed', completed_at: expect.any(Date) });
    expect(Number(done.duration_ms)).toBeGreaterThanOrEqual(40);

    const context = await api.call('getResearchContext', { planId });
    expect(context.skillExecution).toEqual({
      id: executionId,
      skillName: 'research-deep',
      status: COMPLETED,
      planId,
      sessionId: 'deep-1',
      metadata: { depth: 3, sources: ['a', 'b'], phase: 'search' },
      startedAt: expect.any(Date),
      completedAt: expect.any(Date),
      durationMs: Number(done.duration_ms),
    });

    // A finished run stays finished; repeating its final status is harmless.
    expectRefusal(
      await api.refusal('logSkillExecution', { executionId, skillName: 'research-deep', status: EXECUTING }),
      'SKILL_EXECUTION_FINISHED',
      /already completed/,
    );
    const again = await api.call('logSkillExecution', {
      executionId,
      skillName: 'research-deep',
      status: COMPLETED,
      metadata: { note: 'again' },
    });
    expect(again.status).toBe(COMPLETED);
    expect((await execution(executionId)).completed_at).toEqual(done.completed_at);

    // Its session's next plan is not linked to a finished run.
    const later = await api.call('createResearchPlan', {
      name: 'Later',
      researchQuestion: 'Again?',
      steps: stepsOf('search'),
      sessionId: 'deep-1',
    });
    expect((await api.call('getResearchContext', { planId: later.planId })).skillExecution).toBeUndefined();
  });

  it('records a failed run with its error message and duration', async () => {
    const { executionId } = await api.call('logSkillExecution', { skillName: 'research-scan', status: STARTED });
    await api.call('logSkillExecution', {
      executionId,
      skillName: 'research-scan',
      status: FAILED,
      errorMessage: 'Search backend down',
    });
    expect(await execution(executionId)).toMatchObject({
      status: 'failed',
      error_message: 'Search backend down',
      completed_at: expect.any(Date),
      duration_ms: expect.anything(),
    });
  });

  it('refuses an unknown run, another skill name for a run, an unknown plan and a missing status', async () => {
    expectRefusal(
      await api.refusal('logSkillExecution', { executionId: MISSING, skillName: 'research', status: EXECUTING }),
      'SKILL_EXECUTION_NOT_FOUND',
      new RegExp(`No skill execution with id ${MISSING}`),
    );
    const { executionId } = await api.call('logSkillExecution', { skillName: 'research', status: STARTED });
    expectRefusal(
      await api.refusal('logSkillExecution', { executionId, skillName: 'research-deep', status: EXECUTING }),
      'INVALID_ARGUMENT',
      /`skillName` must stay "research"/,
    );
    expectRefusal(
      await api.refusal('logSkillExecution', { skillName: 'research', status: STARTED, planId: MISSING }),
      'PLAN_NOT_FOUND',
    );
    expectRefusal(await api.refusal('logSkillExecution', { skillName: 'research' }), 'INVALID_ARGUMENT', /`status`/);
  });
});
