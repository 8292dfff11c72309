import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import type { Kysely } from 'kysely';
import { connectClient, type Era, startTestGateway } from './harness.js';
import { auditRows, type CallTool, expectToolError, stepsOf, toolsOf } from './plan-workflow-helpers.js';

// Issue 3, end to end through the gateway with a real MCP client: a plan's lifecycle with its
// branching conditions, user reviews with each decision, and modify_plan with each action.

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let admin: Kysely<unknown>;
const clients: Client[] = [];

beforeAll(async () => {
  gateway = await startTestGateway();
  admin = gateway.database.admin as Kysely<unknown>;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await gateway?.close();
});

async function tools(era: Era = 'modern') {
  const client = await connectClient(gateway.url, gateway.token, era);
  clients.push(client);
  return toolsOf(client);
}

const orders = (steps: { stepOrder: number }[]) => steps.map((s) => s.stepOrder);

/** Claims the next step, expecting `order`, and submits `result` for it. */
async function work(
  ok: CallTool,
  planId: string,
  order: number,
  result: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  const next = await ok('get_next_step', { planId });
  expect(next.data).toMatchObject({ status: 'next_step', step: { stepOrder: order } });
  const submitted = await ok('submit_step_result', { planId, stepId: next.data.step.stepId, result, ...extra });
  return { stepId: next.data.step.stepId as string, planStatus: submitted.data.planStatus as string };
}

describe.each<Era>(['legacy', 'modern'])('a six-step plan with a skip_to branch, driven by a %s-era client', (era) => {
  let call: CallTool;
  let ok: CallTool;
  beforeAll(async () => {
    ({ call, ok } = await tools(era));
  });

  const sixSteps = {
    name: 'Battery chemistries',
    researchQuestion: 'Which battery chemistry suits grid storage best?',
    steps: stepsOf('search', 'search', 'extract', 'analyze', 'synthesize', 'critique'),
    branchingConditions: [
      {
        afterStepOrder: 2,
        conditionExpression: 'result.sources.count >= 5 && confidence > 0.5',
        ifTrueAction: 'skip_to',
        actionParams: { targetStepOrder: 5 },
      },
    ],
    sessionId: `six-${era}`,
    outputFormattingNotes: 'Lead with a comparison table.',
  };

  it('skips steps 3 and 4 when step 2 finds enough sources with confidence, counts them as progress, and completes', async () => {
    const created = await ok('create_research_plan', sixSteps);
    expect(created.data).toMatchObject({
      name: 'Battery chemistries',
      researchQuestion: 'Which battery chemistry suits grid storage best?',
      stepCount: 6,
      firstStep: { stepType: 'search', instructions: 'Step 1: search' },
    });
    const { planId } = created.data;

    const fresh = await ok('get_plan_status', { planId });
    expect(fresh.data).toMatchObject({
      planId,
      status: 'planning',
      derivedStatus: 'planning',
      progress: 0,
      totalSteps: 6,
      stalled: false,
      completedSteps: [],
    });
    expect(orders(fresh.data.pendingSteps)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(fresh.data.currentStep).toBeUndefined();

    const first = await ok('get_next_step', { planId, sessionId: `six-${era}` });
    expect(first.data).toMatchObject({
      status: 'next_step',
      step: { stepOrder: 1, stepType: 'search', instructions: 'Step 1: search', stepId: created.data.firstStep.stepId },
    });
    const working = await ok('get_plan_status', { planId });
    expect(working.data).toMatchObject({ status: 'executing', currentStep: { stepOrder: 1, status: 'in_progress' } });
    expect(
      (
        await ok('submit_step_result', {
          planId,
          stepId: first.data.step.stepId,
          result: { sources: { count: 2 } },
          confidence: 0.9,
        })
      ).data,
    ).toEqual({
      submitted: true,
      planStatus: 'executing',
    });

    const second = await work(ok, planId, 2, { sources: { count: 7 } }, { confidence: 0.8 });
    expect(second.planStatus).toBe('executing');

    const branched = await ok('get_plan_status', { planId });
    expect(
      branched.data.completedSteps.map((s: { stepOrder: number; status: string }) => [s.stepOrder, s.status]),
    ).toEqual([
      [1, 'completed'],
      [2, 'completed'],
      [3, 'skipped'],
      [4, 'skipped'],
    ]);
    expect(orders(branched.data.pendingSteps)).toEqual([5, 6]);
    expect(branched.data.progress).toBeCloseTo((4 / 6) * 100, 10);
    expect(branched.data.currentStep).toBeUndefined();
    const skippedStep = branched.data.completedSteps[2].stepId;
    expectToolError(
      await call('submit_step_result', { planId, stepId: skippedStep, result: {} }),
      'STEP_STATE_CONFLICT',
      /Step 3 is skipped/,
    );

    await work(ok, planId, 5, { report: 'LFP wins on cost' }, { outputFormattingNotes: 'Cite prices per kWh.' });
    expect((await work(ok, planId, 6, { critique: 'sound' })).planStatus).toBe('completed');

    expect((await ok('get_next_step', { planId })).data).toEqual({
      status: 'plan_complete',
      outputMediaType: 'conversation',
      planFormattingNotes: 'Lead with a comparison table.',
      stepFormattingNotes: [{ stepId: expect.any(String), stepOrder: 5, notes: 'Cite prices per kWh.' }],
    });
    expect((await ok('get_plan_status', { planId })).data).toMatchObject({
      status: 'completed',
      derivedStatus: 'completed',
      progress: 100,
      pendingSteps: [],
    });

    // The branch is on record: step 2's step_completed names the condition and the skipped steps.
    const audit = await auditRows(admin, planId);
    const completion = audit.find((row) => row.event_type === 'step_completed' && row.step_id === second.stepId)!;
    const skipped = branched.data.completedSteps
      .filter((s: { status: string }) => s.status === 'skipped')
      .map((s: { stepId: string }) => s.stepId);
    expect(completion.details).toMatchObject({
      stepOrder: 2,
      confidence: 0.8,
      via: 'result',
      branch: { action: 'skip_to', skippedStepIds: skipped },
    });
  });

  it('does not branch when only half of the && holds', async () => {
    const { planId } = (await ok('create_research_plan', sixSteps)).data;
    await work(ok, planId, 1, { sources: { count: 1 } });
    await work(ok, planId, 2, { sources: { count: 9 } }, { confidence: 0.4 });
    const status = await ok('get_plan_status', { planId });
    expect(orders(status.data.pendingSteps)).toEqual([3, 4, 5, 6]);
    expect(status.data.progress).toBeCloseTo((2 / 6) * 100, 10);
  });
});

describe('get_next_step', () => {
  it('hands each step out once, and says so when the remaining steps are in progress elsewhere', async () => {
    const { ok } = await tools();
    const { planId } = (
      await ok('create_research_plan', {
        name: 'Claims',
        researchQuestion: 'Who works on what?',
        steps: stepsOf('search', 'extract'),
      })
    ).data;
    const first = await ok('get_next_step', { planId, sessionId: 'agent-1' });
    const second = await ok('get_next_step', { planId, sessionId: 'agent-2' });
    expect([first.data.step.stepOrder, second.data.step.stepOrder]).toEqual([1, 2]);
    expect((await ok('get_next_step', { planId, sessionId: 'agent-3' })).data).toEqual({
      status: 'no_pending_steps',
      stepFormattingNotes: [],
    });
    const started = (await auditRows(admin, planId)).filter((row) => row.event_type === 'step_started');
    expect(started.map((row) => [row.details.stepOrder, row.session_id, row.details.autoAdvanced])).toEqual([
      [1, 'agent-1', false],
      [2, 'agent-2', false],
    ]);
  });
});

describe('branching actions fail and continue', () => {
  let call: CallTool;
  let ok: CallTool;
  beforeAll(async () => {
    ({ call, ok } = await tools());
  });

  it('fail: the plan fails, nothing more is handed out and no result is accepted', async () => {
    const { planId } = (
      await ok('create_research_plan', {
        name: 'Fragile',
        researchQuestion: 'Is the source base strong enough?',
        steps: stepsOf('search', 'analyze', 'synthesize'),
        branchingConditions: [{ afterStepOrder: 1, conditionExpression: 'confidence < 0.3', ifTrueAction: 'fail' }],
      })
    ).data;
    const first = await work(ok, planId, 1, { sources: { count: 0 } }, { confidence: 0.2 });
    expect(first.planStatus).toBe('failed');

    expect((await ok('get_next_step', { planId })).data).toMatchObject({ status: 'plan_failed' });
    const status = await ok('get_plan_status', { planId });
    expect(status.data).toMatchObject({ status: 'failed', progress: (1 / 3) * 100 });
    expect(orders(status.data.pendingSteps)).toEqual([2, 3]);

    const later = status.data.pendingSteps[0].stepId;
    expectToolError(
      await call('submit_step_result', { planId, stepId: later, result: { late: true } }),
      'PLAN_STATE_CONFLICT',
      /Plan is failed/,
    );

    const statusChange = (await auditRows(admin, planId))
      .filter((row) => row.event_type === 'plan_status_changed')
      .at(-1)!;
    expect(statusChange.details).toMatchObject({
      from: 'executing',
      to: 'failed',
      cause: 'branch_condition',
      conditionId: expect.any(String),
    });
  });

  it('continue: the first condition that holds decides, so a later skip_to is not taken', async () => {
    const { planId } = (
      await ok('create_research_plan', {
        name: 'Clear case',
        researchQuestion: 'Is the answer already clear?',
        steps: stepsOf('search', 'analyze', 'critique', 'synthesize'),
        branchingConditions: [
          { afterStepOrder: 1, conditionExpression: "result.verdict == 'clear'", ifTrueAction: 'continue' },
          {
            afterStepOrder: 1,
            conditionExpression: 'confidence >= 0.5',
            ifTrueAction: 'skip_to',
            actionParams: { targetStepOrder: 4 },
          },
        ],
      })
    ).data;
    expect((await work(ok, planId, 1, { verdict: 'clear' }, { confidence: 0.9 })).planStatus).toBe('executing');
    const status = await ok('get_plan_status', { planId });
    expect(orders(status.data.pendingSteps)).toEqual([2, 3, 4]);
    expect((await ok('get_next_step', { planId })).data.step.stepOrder).toBe(2);

    // Without the continue, the skip_to of the same plan shape is taken.
    const other = (
      await ok('create_research_plan', {
        name: 'Unclear case',
        researchQuestion: 'Is the answer already clear?',
        steps: stepsOf('search', 'analyze', 'critique', 'synthesize'),
        branchingConditions: [
          { afterStepOrder: 1, conditionExpression: "result.verdict == 'clear'", ifTrueAction: 'continue' },
          {
            afterStepOrder: 1,
            conditionExpression: 'confidence >= 0.5',
            ifTrueAction: 'skip_to',
            actionParams: { targetStepOrder: 4 },
          },
        ],
      })
    ).data.planId;
    await work(ok, other, 1, { verdict: 'murky' }, { confidence: 0.9 });
    expect((await ok('get_next_step', { planId: other })).data.step.stepOrder).toBe(4);
  });
});

describe('a user review', () => {
  let call: CallTool;
  let ok: CallTool;
  beforeAll(async () => {
    ({ call, ok } = await tools());
  });

  it('approve, modify and skip: each decision moves the step and lets the plan go on; wrong states are refused by name', async () => {
    const { planId } = (
      await ok('create_research_plan', {
        name: 'Reviewed',
        researchQuestion: 'What does the user think?',
        steps: stepsOf('checkpoint', 'checkpoint', 'checkpoint', 'synthesize'),
      })
    ).data;
    const one = (await ok('get_next_step', { planId })).data.step.stepId;
    const two = (await ok('get_next_step', { planId })).data.step.stepId;
    const three = (await ok('get_plan_status', { planId })).data.pendingSteps[0].stepId;

    const requested = await ok('request_user_review', {
      planId,
      stepId: one,
      summary: 'Found 12 sources.',
      questions: ['Include preprints?'],
      sessionId: 'review-s',
    });
    expect(requested.data).toEqual({
      reviewId: expect.any(String),
      stepStatus: 'awaiting_input',
      planStatus: 'awaiting_review',
    });
    expect((await ok('get_next_step', { planId })).data).toMatchObject({ status: 'awaiting_review' });
    expect((await ok('get_plan_status', { planId })).data).toMatchObject({
      status: 'awaiting_review',
      currentStep: { stepOrder: 1, status: 'awaiting_input' },
    });

    // Only the step awaiting input can be decided; the refusal names the state it is in.
    expectToolError(
      await call('submit_user_decision', { planId, stepId: two, decision: 'approve' }),
      'STEP_STATE_CONFLICT',
      /Step 2 is in_progress/,
      /awaiting_input/,
    );
    expectToolError(
      await call('submit_user_decision', { planId, stepId: three, decision: 'approve' }),
      'STEP_STATE_CONFLICT',
      /Step 3 is pending/,
      /awaiting_input/,
    );
    // While the review is open, nobody works around it on steps that were never handed out.
    expectToolError(
      await call('submit_step_result', { planId, stepId: three, result: {} }),
      'PLAN_STATE_CONFLICT',
      /Plan is awaiting_review/,
      /step 3 is pending/,
    );

    const approved = await ok('submit_user_decision', {
      planId,
      stepId: one,
      decision: 'approve',
      feedback: 'Looks right.',
      sessionId: 'review-s',
    });
    expect(approved.data).toEqual({
      reviewId: requested.data.reviewId,
      decision: 'approve',
      stepStatus: 'completed',
      planStatus: 'executing',
    });
    expectToolError(
      await call('submit_user_decision', { planId, stepId: one, decision: 'approve' }),
      'PLAN_STATE_CONFLICT',
      /Plan is executing/,
      /awaiting_review/,
    );

    // modify: the feedback is required, and it is appended to the step's instructions.
    await ok('request_user_review', { planId, stepId: two, summary: 'Draft comparison.' });
    expectToolError(
      await call('submit_user_decision', { planId, stepId: two, decision: 'modify' }),
      'INVALID_ARGUMENT',
      /feedback must not be empty/,
    );
    const modified = await ok('submit_user_decision', {
      planId,
      stepId: two,
      decision: 'modify',
      feedback: 'Include 2024 data.',
    });
    expect(modified.data).toMatchObject({ decision: 'modify', stepStatus: 'in_progress', planStatus: 'executing' });
    const context = await ok('get_step_context', { planId, stepId: two });
    expect(context.data.currentStep).toMatchObject({
      status: 'in_progress',
      instructions: 'Step 2: checkpoint\n\nUser feedback: Include 2024 data.',
    });
    await ok('submit_step_result', { planId, stepId: two, result: { comparison: 'with 2024 data' } });

    // skip
    expect((await ok('get_next_step', { planId })).data.step.stepId).toBe(three);
    await ok('request_user_review', { planId, stepId: three, summary: 'Optional deep dive.' });
    expect((await ok('submit_user_decision', { planId, stepId: three, decision: 'skip' })).data).toMatchObject({
      stepStatus: 'skipped',
      planStatus: 'executing',
    });

    // A review is only for a step in progress; the refusal changes nothing.
    const four = (await ok('get_plan_status', { planId })).data.pendingSteps[0].stepId;
    const before = (await auditRows(admin, planId)).length;
    expectToolError(
      await call('request_user_review', { planId, stepId: four, summary: 'Too early.' }),
      'STEP_STATE_CONFLICT',
      /Step 4 is pending/,
      /in_progress/,
    );
    expect(await auditRows(admin, planId)).toHaveLength(before);
    expect((await ok('get_plan_status', { planId })).data).toMatchObject({ status: 'executing', progress: 75 });

    const reviews = (await auditRows(admin, planId))
      .filter((row) => row.event_type === 'user_reviewed')
      .map((row) => [row.details.phase, row.details.decision ?? null]);
    expect(reviews).toEqual([
      ['requested', null],
      ['decided', 'approve'],
      ['requested', null],
      ['decided', 'modify'],
      ['requested', null],
      ['decided', 'skip'],
    ]);
  });

  it('reject: the step fails with the feedback as its reason and the plan fails', async () => {
    const { planId } = (
      await ok('create_research_plan', {
        name: 'Rejected',
        researchQuestion: 'Will the user accept it?',
        steps: stepsOf('checkpoint', 'synthesize'),
      })
    ).data;
    const step = (await ok('get_next_step', { planId })).data.step.stepId;
    await ok('request_user_review', { planId, stepId: step, summary: 'Scope proposal.' });
    const rejected = await ok('submit_user_decision', {
      planId,
      stepId: step,
      decision: 'reject',
      feedback: 'Wrong scope.',
    });
    expect(rejected.data).toMatchObject({ decision: 'reject', stepStatus: 'failed', planStatus: 'failed' });
    expect((await ok('get_next_step', { planId })).data).toMatchObject({ status: 'plan_failed' });
    const context = await ok('get_research_context', { planId });
    expect(context.data.plan.status).toBe('failed');
    expect(context.data.steps[0]).toMatchObject({ status: 'failed', failureReason: 'Wrong scope.' });
  });
});

describe('modify_plan', () => {
  let call: CallTool;
  let ok: CallTool;
  beforeAll(async () => {
    ({ call, ok } = await tools());
  });

  /** A plan A, B, C whose condition after A (confidence > 0.5) skips to C. */
  async function abc() {
    const created = await ok('create_research_plan', {
      name: 'Modified',
      researchQuestion: 'Can the plan change under way?',
      steps: [
        { stepType: 'search', instructions: 'A' },
        { stepType: 'analyze', instructions: 'B' },
        { stepType: 'synthesize', instructions: 'C' },
      ],
      branchingConditions: [
        {
          afterStepOrder: 1,
          conditionExpression: 'confidence > 0.5',
          ifTrueAction: 'skip_to',
          actionParams: { targetStepOrder: 3 },
        },
      ],
    });
    const { planId } = created.data;
    const steps = (await ok('get_plan_status', { planId })).data.pendingSteps as {
      stepId: string;
      instructions: string;
    }[];
    const id = Object.fromEntries(steps.map((s) => [s.instructions, s.stepId])) as Record<'A' | 'B' | 'C', string>;
    return { planId, id };
  }

  const shape = (steps: { stepOrder: number; instructions: string; status: string }[]) =>
    steps.map((s) => `${s.stepOrder}:${s.instructions}:${s.status}`);

  it('runs every action, keeps conditions on their steps through a reorder, and the plan carries on past a failed step', async () => {
    const { planId, id } = await abc();

    // add_steps: after order 0 (first), after order 1, and without a position (appended).
    const added = await ok('modify_plan', {
      planId,
      action: 'add_steps',
      steps: [
        { stepType: 'custom', instructions: 'X', insertAfterOrder: 0 },
        { stepType: 'extract', instructions: 'Y', insertAfterOrder: 1 },
        { stepType: 'critique', instructions: 'Z' },
      ],
      modificationRationale: 'More coverage',
      sessionId: 'mod-s',
    });
    expect(added.data).toMatchObject({ planId, action: 'add_steps', planStatus: 'planning' });
    expect(shape(added.data.steps)).toEqual([
      '1:X:pending',
      '2:A:pending',
      '3:Y:pending',
      '4:B:pending',
      '5:C:pending',
      '6:Z:pending',
    ]);
    const newId = Object.fromEntries(
      added.data.steps.map((s: { instructions: string; stepId: string }) => [s.instructions, s.stepId]),
    ) as Record<string, string>;

    // update_step_instructions
    const updated = await ok('modify_plan', {
      planId,
      action: 'update_step_instructions',
      stepId: id.B,
      updatedInstructions: 'B, with costs',
    });
    expect(shape(updated.data.steps)).toContain('4:B, with costs:pending');

    // remove_step: later orders move up.
    const removed = await ok('modify_plan', { planId, action: 'remove_step', stepId: newId.Y! });
    expect(shape(removed.data.steps)).toEqual([
      '1:X:pending',
      '2:A:pending',
      '3:B, with costs:pending',
      '4:C:pending',
      '5:Z:pending',
    ]);

    // reorder_steps: B first. By order the condition would now follow B and target X; it still
    // follows A and targets C.
    const reordered = await ok('modify_plan', {
      planId,
      action: 'reorder_steps',
      stepOrder: [id.B, id.A, newId.X, id.C, newId.Z],
    });
    expect(shape(reordered.data.steps)).toEqual([
      '1:B, with costs:pending',
      '2:A:pending',
      '3:X:pending',
      '4:C:pending',
      '5:Z:pending',
    ]);
    await work(ok, planId, 1, { done: 'B' }, { confidence: 0.9 });
    expect(orders((await ok('get_plan_status', { planId })).data.pendingSteps)).toEqual([2, 3, 4, 5]);
    await work(ok, planId, 2, { done: 'A' }, { confidence: 0.9 });
    const afterBranch = await ok('get_plan_status', { planId });
    expect(
      afterBranch.data.completedSteps.map(
        (s: { instructions: string; status: string }) => `${s.instructions}:${s.status}`,
      ),
    ).toEqual(['B, with costs:completed', 'A:completed', 'X:skipped']);

    // fail_step on the step in progress: it fails, the plan goes on and still completes.
    const c = await ok('get_next_step', { planId });
    expect(c.data.step).toMatchObject({ stepId: id.C, stepOrder: 4 });
    const failed = await ok('modify_plan', { planId, action: 'fail_step', stepId: id.C, reason: 'Source offline' });
    expect(failed.data).toMatchObject({ planStatus: 'executing' });
    expect(shape(failed.data.steps)).toContain('4:C:failed');
    expect((await work(ok, planId, 5, { done: 'Z' })).planStatus).toBe('completed');
    expect((await ok('get_plan_status', { planId })).data).toMatchObject({ status: 'completed', progress: 80 });

    const modifications = (await auditRows(admin, planId))
      .filter((row) => row.event_type === 'plan_modified')
      .map((row) => row.details.change);
    expect(modifications).toEqual([
      'created',
      'steps_added',
      'instructions_updated',
      'step_removed',
      'steps_reordered',
      'step_failed',
    ]);
    const stepFailed = (await auditRows(admin, planId)).find((row) => row.event_type === 'step_failed')!;
    expect(stepFailed).toMatchObject({ step_id: id.C, details: { reason: 'Source offline', via: 'modify_plan' } });
  });

  it('fails a pending step too, and the plan skips over it', async () => {
    const { planId, id } = await abc();
    const failed = await ok('modify_plan', { planId, action: 'fail_step', stepId: id.A });
    expect(shape(failed.data.steps)).toEqual(['1:A:failed', '2:B:pending', '3:C:pending']);
    expect((await ok('get_next_step', { planId })).data.step).toMatchObject({ stepId: id.B, stepOrder: 2 });
  });

  it('refuses fields the action does not use, and missing ones', async () => {
    const { planId, id } = await abc();
    expectToolError(
      await call('modify_plan', { planId, action: 'remove_step' }),
      'INVALID_ARGUMENT',
      /`stepId` is required for action remove_step/,
    );
    expectToolError(
      await call('modify_plan', { planId, action: 'add_steps' }),
      'INVALID_ARGUMENT',
      /`steps` is required for action add_steps/,
    );
    expectToolError(
      await call('modify_plan', { planId, action: 'reorder_steps' }),
      'INVALID_ARGUMENT',
      /`stepOrder` is required for action reorder_steps/,
    );
    expectToolError(
      await call('modify_plan', { planId, action: 'update_step_instructions', stepId: id.A }),
      'INVALID_ARGUMENT',
      /`updatedInstructions` is required/,
    );
    expectToolError(
      await call('modify_plan', { planId, action: 'fail_step' }),
      'INVALID_ARGUMENT',
      /`stepId` is required for action fail_step/,
    );
    expectToolError(
      await call('modify_plan', { planId, action: 'remove_step', stepId: id.A, reason: 'why' }),
      'INVALID_ARGUMENT',
      /`reason` is not used by action remove_step/,
    );
    expectToolError(
      await call('modify_plan', {
        planId,
        action: 'add_steps',
        steps: [{ stepType: 'search', instructions: 'N' }],
        stepId: id.A,
      }),
      'INVALID_ARGUMENT',
      /`stepId` is not used by action add_steps/,
    );
    expectToolError(
      await call('modify_plan', {
        planId,
        action: 'update_step_instructions',
        stepId: id.A,
        updatedInstructions: 'new',
        stepOrder: [id.A],
      }),
      'INVALID_ARGUMENT',
      /`stepOrder` is not used by action update_step_instructions/,
    );
    expectToolError(
      await call('modify_plan', {
        planId,
        action: 'add_steps',
        steps: [{ stepType: 'search', instructions: 'N', insertAfterOrder: 4 }],
      }),
      'INVALID_INSERT_POSITION',
      /insertAfterOrder is 4; the plan has 3 steps/,
    );
    expect(shape((await ok('get_research_context', { planId })).data.steps)).toEqual([
      '1:A:pending',
      '2:B:pending',
      '3:C:pending',
    ]);
  });

  it('refuses a reorder that is not a permutation or that would put a skip_to target before its step', async () => {
    const { planId, id } = await abc();
    expectToolError(
      await call('modify_plan', { planId, action: 'reorder_steps', stepOrder: [id.C, id.A] }),
      'INVALID_REORDER',
      /must list every step of the plan; missing: /,
    );
    expectToolError(
      await call('modify_plan', {
        planId,
        action: 'reorder_steps',
        stepOrder: [id.C, id.A, '00000000-0000-4000-8000-000000000000'],
      }),
      'INVALID_REORDER',
      /not in this plan/,
    );
    expectToolError(
      await call('modify_plan', { planId, action: 'reorder_steps', stepOrder: [id.A, id.A, id.B] }),
      'INVALID_ARGUMENT',
      /stepOrder/,
      /duplicate/,
    );
    expectToolError(
      await call('modify_plan', { planId, action: 'reorder_steps', stepOrder: [id.C, id.A, id.B] }),
      'INVALID_REORDER',
      /skip_to target/,
    );
    expect(shape((await ok('get_research_context', { planId })).data.steps)).toEqual([
      '1:A:pending',
      '2:B:pending',
      '3:C:pending',
    ]);
  });

  it('removes only pending steps, and drops the conditions that pointed at the removed step', async () => {
    const { planId, id } = await abc();
    await ok('get_next_step', { planId });
    expectToolError(
      await call('modify_plan', { planId, action: 'remove_step', stepId: id.A }),
      'STEP_STATE_CONFLICT',
      /Step 1 is in_progress; only pending steps can be removed/,
    );
    const removed = await ok('modify_plan', { planId, action: 'remove_step', stepId: id.C });
    expect(shape(removed.data.steps)).toEqual(['1:A:in_progress', '2:B:pending']);
    const row = (await auditRows(admin, planId)).find((r) => r.details.change === 'step_removed')!;
    expect(row.details).toMatchObject({ stepOrder: 3, droppedConditionIds: [expect.any(String)] });
    // With the condition gone, a confident A no longer skips anything.
    await ok('submit_step_result', { planId, stepId: id.A, result: {}, confidence: 0.99 });
    expect((await ok('get_next_step', { planId })).data.step.stepId).toBe(id.B);
  });

  it('refuses to change a plan that is awaiting review or finished', async () => {
    const { planId, id } = await abc();
    await ok('get_next_step', { planId });
    await ok('request_user_review', { planId, stepId: id.A, summary: 'Check' });
    expectToolError(
      await call('modify_plan', {
        planId,
        action: 'update_step_instructions',
        stepId: id.B,
        updatedInstructions: 'later',
      }),
      'PLAN_STATE_CONFLICT',
      /Plan is awaiting_review; modify_plan\(update_step_instructions\) needs a plan that is planning or executing/,
    );
    await ok('submit_user_decision', { planId, stepId: id.A, decision: 'approve' });
    await ok('submit_step_result', { planId, stepId: id.B, result: {} });
    await ok('submit_step_result', { planId, stepId: id.C, result: {} });
    expectToolError(
      await call('modify_plan', { planId, action: 'add_steps', steps: [{ stepType: 'search', instructions: 'More' }] }),
      'PLAN_STATE_CONFLICT',
      /Plan is completed; modify_plan\(add_steps\) needs a plan that is planning or executing/,
    );
    expectToolError(
      await call('modify_plan', { planId, action: 'fail_step', stepId: id.B }),
      'PLAN_STATE_CONFLICT',
      /Plan is completed/,
    );
  });
});
