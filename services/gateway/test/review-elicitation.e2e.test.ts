import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { sql, type Kysely } from 'kysely';
import { startTestGateway } from './harness.js';
import { type CallTool, expectToolError, toolsOf } from './tool-answers.js';

// ADR 0033: request_user_review asks the human directly when the client can (a 2026-07-28
// client that declares form elicitation): the official client SDK fulfils the input-required
// round trip with its elicitation handler (the "human" below), the gateway records the answer
// through submit_user_decision's rpc. The whole system runs: gateway, gRPC, plan engine,
// PostgreSQL. Clients that cannot be asked, and the round trip's refusals, are in
// review-elicitation-*.test.ts (over stub services).

interface FormAsked {
  mode?: string;
  message: string;
  requestedSchema: { properties: Record<string, { oneOf?: { const: string; title: string }[] }>; required?: string[] };
}
type HumanAnswer =
  | { action: 'accept'; content: Record<string, string | number | boolean | string[]> }
  | { action: 'decline' | 'cancel' };

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let admin: Kysely<unknown>;
let human: HumanAnswer;
const forms: FormAsked[] = [];
let client: Client;
let tools: { call: CallTool; ok: CallTool };

beforeAll(async () => {
  gateway = await startTestGateway();
  admin = gateway.database.admin as Kysely<unknown>;
  client = new Client(
    { name: 'reviewing-client', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    forms.push(request.params as unknown as FormAsked);
    return human;
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(gateway.url), { authProvider: { token: async () => gateway.token } }),
  );
  tools = toolsOf(client);
});
afterAll(async () => {
  await client?.close();
  await gateway?.close();
});

/** A new plan of two steps whose first step is in progress. */
async function stepInProgress(ok: CallTool = tools.ok) {
  const created = await ok('create_research_plan', {
    name: 'Reviewed',
    researchQuestion: 'Is it sound?',
    steps: [
      { stepType: 'search', instructions: 'Find sources' },
      { stepType: 'synthesize', instructions: 'Write it up' },
    ],
  });
  const planId = created.data.planId as string;
  const next = await ok('get_next_step', { planId });
  return { planId, stepId: next.data.step.stepId as string };
}

const reviewArgs = (ids: { planId: string; stepId: string }) => ({
  ...ids,
  summary: 'Found 12 sources, 3 of them peer reviewed.',
  questions: ['Are three peer-reviewed sources enough?', 'Should preprints count?'],
  sessionId: 'review-session',
});

/** The plan's user_reviewed audit events, oldest first (through get_research_context, as a model reads them). */
async function reviewEvents(planId: string) {
  const context = await tools.ok('get_research_context', { planId });
  return (context.data.recentAuditEvents as { eventType: string; sessionId?: string; eventData: unknown }[])
    .filter((e) => e.eventType === 'user_reviewed')
    .reverse()
    .map(({ sessionId, eventData }) => ({ sessionId, eventData }));
}

describe('the human decides in the client’s form', () => {
  it('approve: one form with the summary, the questions and the four decisions; the plan goes on', async () => {
    const ids = await stepInProgress();
    human = { action: 'accept', content: { decision: 'approve', feedback: 'Good enough.' } };
    const before = forms.length;
    const result = await tools.call('request_user_review', reviewArgs(ids));

    expect(forms.length - before).toBe(1);
    const form = forms.at(-1)!;
    expect(form.message).toBe(
      'A step of your research plan is ready for your review.\n\nFound 12 sources, 3 of them peer reviewed.\n\n' +
        'Questions:\n- Are three peer-reviewed sources enough?\n- Should preprints count?',
    );
    expect(Object.keys(form.requestedSchema.properties)).toEqual(['decision', 'feedback']);
    expect(form.requestedSchema.properties.decision!.oneOf!.map((o) => o.const)).toEqual([
      'approve',
      'reject',
      'modify',
      'skip',
    ]);
    expect(form.requestedSchema.required).toEqual(['decision']);

    expect(result.isError).toBe(false);
    expect(result.data).toEqual({
      reviewId: expect.any(String),
      stepStatus: 'completed',
      planStatus: 'executing',
      userAnswer: {
        action: 'accept',
        answer: { decision: 'approve', feedback: 'Good enough.' },
        next: expect.stringMatching(/do not submit it again.*get_next_step/),
      },
    });
    const next = await tools.ok('get_next_step', { planId: ids.planId });
    expect(next.data).toMatchObject({ status: 'next_step', step: { stepOrder: 2, stepType: 'synthesize' } });
  });

  it('modify with feedback: the step is back in progress with the feedback in its instructions', async () => {
    const ids = await stepInProgress();
    human = { action: 'accept', content: { decision: 'modify', feedback: 'Add sources from 2024.' } };
    const result = await tools.ok('request_user_review', reviewArgs(ids));
    expect(result.data).toMatchObject({ stepStatus: 'in_progress', planStatus: 'executing' });
    const step = await tools.ok('get_step_context', ids);
    expect(step.data.currentStep.instructions).toBe('Find sources\n\nUser feedback: Add sources from 2024.');
  });

  it('reject: the step fails and the plan with it', async () => {
    const ids = await stepInProgress();
    human = { action: 'accept', content: { decision: 'reject', feedback: 'Wrong question.' } };
    const result = await tools.ok('request_user_review', reviewArgs(ids));
    expect(result.data).toMatchObject({
      stepStatus: 'failed',
      planStatus: 'failed',
      userAnswer: { action: 'accept', answer: { decision: 'reject' } },
    });
  });

  it('skip, with the feedback field left blank: the step is skipped, the next one handed out', async () => {
    const ids = await stepInProgress();
    human = { action: 'accept', content: { decision: 'skip', feedback: '' } };
    const result = await tools.ok('request_user_review', reviewArgs(ids));
    expect(result.data).toMatchObject({ stepStatus: 'skipped', userAnswer: { answer: { decision: 'skip' } } });
    expect(result.data.userAnswer.answer).not.toHaveProperty('feedback');
    const next = await tools.ok('get_next_step', { planId: ids.planId });
    expect(next.data).toMatchObject({ status: 'next_step', step: { stepOrder: 2 } });
  });

  it('modify without feedback: the plan engine’s refusal, as a tool error; the review stays open', async () => {
    const ids = await stepInProgress();
    human = { action: 'accept', content: { decision: 'modify' } };
    const refused = await tools.call('request_user_review', reviewArgs(ids));
    expectToolError(refused, 'INVALID_ARGUMENT', /feedback/);
    const status = await tools.ok('get_plan_status', { planId: ids.planId });
    expect(status.data.status).toBe('awaiting_review');
    expect(await reviewEvents(ids.planId)).toHaveLength(1);
  });

  it('leaves the same audit trail and tool-call log as a decision pulled with submit_user_decision', async () => {
    const since = new Date();
    const elicited = await stepInProgress();
    human = { action: 'accept', content: { decision: 'approve', feedback: 'Fine.' } };
    await tools.ok('request_user_review', reviewArgs(elicited));

    // The pull flow, by a client that cannot show forms.
    const plain = new Client(
      { name: 'plain', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await plain.connect(
      new StreamableHTTPClientTransport(new URL(gateway.url), { authProvider: { token: async () => gateway.token } }),
    );
    try {
      const pulled = await stepInProgress(toolsOf(plain).ok);
      await toolsOf(plain).ok('request_user_review', reviewArgs(pulled));
      await toolsOf(plain).ok('submit_user_decision', {
        ...pulled,
        decision: 'approve',
        feedback: 'Fine.',
        sessionId: 'review-session',
      });
      expect(await reviewEvents(elicited.planId)).toEqual(await reviewEvents(pulled.planId));
      expect((await reviewEvents(elicited.planId)).map((e) => e.eventData)).toEqual([
        expect.objectContaining({ action: 'review_requested' }),
        { action: 'decision_submitted', decision: 'approve', feedback: 'Fine.' },
      ]);
    } finally {
      await plain.close();
    }
    await gateway.runtime.flushToolCallLog();
    const { rows } = await sql<{ tool: string; outcome: string }>`
      select tool, outcome from gateway.mcp_tool_call_log
      where occurred_at >= ${since} and tool in ('request_user_review', 'submit_user_decision')
      order by occurred_at`.execute(admin);
    expect(rows).toEqual([
      { tool: 'request_user_review', outcome: 'ok' },
      { tool: 'submit_user_decision', outcome: 'ok' },
      { tool: 'request_user_review', outcome: 'ok' },
      { tool: 'submit_user_decision', outcome: 'ok' },
    ]);
  });
});

describe('the human declines or dismisses the form', () => {
  it.each(['decline', 'cancel'] as const)('%s: nothing is recorded, the pull flow still works', async (action) => {
    const ids = await stepInProgress();
    human = { action };
    const result = await tools.ok('request_user_review', reviewArgs(ids));
    expect(result.data).toEqual({
      reviewId: expect.any(String),
      stepStatus: 'awaiting_input',
      planStatus: 'awaiting_review',
      userAnswer: { action, next: expect.stringMatching(/submit_user_decision/) },
    });
    expect((await reviewEvents(ids.planId)).map((e) => (e.eventData as { action: string }).action)).toEqual([
      'review_requested',
    ]);

    const decided = await tools.ok('submit_user_decision', { ...ids, decision: 'approve' });
    expect(decided.data).toMatchObject({ reviewId: result.data.reviewId, stepStatus: 'completed' });
  });
});
