import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { buildServer } from '@quarry/gateway';
import type { FastifyInstance } from 'fastify';
import { connectClient, type Era, startTestGateway } from './harness.js';
import { type CallTool, expectToolError, toolsOf } from './tool-answers.js';

// ADR 0033, the other side of review-elicitation.e2e.test.ts: clients that cannot be asked keep
// the pull flow exactly, and the elicitation round trip refuses what it must — a state that is
// not this call's, tampered or under another token, an answer the form does not allow, a retry
// after the plan moved on, a token revoked between the rounds — recording nothing. The retry
// may reach another replica: everything it needs is in the signed state.

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let tools: { call: CallTool; ok: CallTool };
const clients: Client[] = [];

async function connect(url: string, token: string, name: string, options: ConstructorParameters<typeof Client>[1]) {
  const client = new Client({ name, version: '1.0.0' }, options);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: { token: async () => token } }));
  clients.push(client);
  return client;
}

beforeAll(async () => {
  gateway = await startTestGateway();
  tools = toolsOf(await connectClient(gateway.url, gateway.token, 'modern'));
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await gateway?.close();
});

async function stepInProgress() {
  const created = await tools.ok('create_research_plan', {
    name: 'Refusals',
    researchQuestion: 'What is refused?',
    steps: [
      { stepType: 'search', instructions: 'Find sources' },
      { stepType: 'synthesize', instructions: 'Write it up' },
    ],
  });
  const planId = created.data.planId as string;
  const next = await tools.ok('get_next_step', { planId });
  return { planId, stepId: next.data.step.stepId as string };
}

const reviewArgs = (ids: { planId: string; stepId: string }) => ({ ...ids, summary: 'Twelve sources found.' });

/** Where the plan stands, and the actions of its user_reviewed audit events, oldest first. */
async function standing(planId: string) {
  const context = await tools.ok('get_research_context', { planId });
  const reviews = (context.data.recentAuditEvents as { eventType: string; eventData: { action: string } }[])
    .filter((e) => e.eventType === 'user_reviewed')
    .map((e) => e.eventData.action)
    .reverse();
  return { status: context.data.plan.status as string, reviews };
}
const AWAITING = { status: 'awaiting_review', reviews: ['review_requested'] };

describe('clients that cannot show a form keep the pull flow', () => {
  const cases: [string, Era, ConstructorParameters<typeof Client>[1]][] = [
    ['a 2025-era client that declares elicitation', 'legacy', { capabilities: { elicitation: { form: {} } } }],
    ['a 2026-07-28 client without the capability', 'modern', {}],
    ['a 2026-07-28 client that offers URL elicitation only', 'modern', { capabilities: { elicitation: { url: {} } } }],
  ];
  it.each(cases)('%s', async (name, era, options) => {
    const client = await connect(gateway.url, gateway.token, name, {
      ...options,
      versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } },
    });
    let asked = 0;
    if (options?.capabilities?.elicitation)
      client.setRequestHandler('elicitation/create', async () => {
        asked += 1;
        return { action: 'decline' };
      });
    const ids = await stepInProgress();
    const result = await toolsOf(client).ok('request_user_review', reviewArgs(ids));
    expect(asked).toBe(0);
    expect(result.data).toEqual({
      reviewId: expect.any(String),
      stepStatus: 'awaiting_input',
      planStatus: 'awaiting_review',
    });
    const decided = await toolsOf(client).ok('submit_user_decision', { ...ids, decision: 'approve' });
    expect(decided.data).toMatchObject({ reviewId: result.data.reviewId, stepStatus: 'completed' });
  });
});

describe('who is never shown the form', () => {
  const formOptions = {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: { pin: '2026-07-28' as const } },
  };
  const watch = (client: Client) => {
    const seen = { asked: 0 };
    client.setRequestHandler('elicitation/create', async () => {
      seen.asked += 1;
      return { action: 'accept', content: { decision: 'approve' } };
    });
    return seen;
  };

  it('another organization: its plan is missing, exactly like an id that does not exist', async () => {
    await gateway.admin.createOrg({ slug: 'rival', name: 'Rival Labs' });
    await gateway.admin.addUser({ email: 'eve@rival.test', orgSlug: 'rival', name: 'Eve' });
    const eve = await gateway.admin.createToken({ orgSlug: 'rival', email: 'eve@rival.test', name: 'eve' });
    const client = await connect(gateway.url, eve.token, 'rival', formOptions);
    const seen = watch(client);
    const ids = await stepInProgress();
    const foreign = await toolsOf(client).call('request_user_review', reviewArgs(ids));
    const missing = await toolsOf(client).call('request_user_review', {
      ...reviewArgs(ids),
      planId: '00000000-0000-4000-8000-000000000000',
    });
    expectToolError(foreign, 'PLAN_NOT_FOUND');
    expect(foreign.data.error.message.replace(ids.planId, 'ID')).toBe(
      missing.data.error.message.replace('00000000-0000-4000-8000-000000000000', 'ID'),
    );
    expect(seen.asked).toBe(0);
    expect(await standing(ids.planId)).toEqual({ status: 'executing', reviews: [] });
  });

  it('a token that may not call submit_user_decision: the pull flow, which it cannot finish either', async () => {
    const limited = await gateway.admin.createToken({
      orgSlug: 'acme',
      email: 'ada@acme.test',
      name: 'reviews only',
      tools: ['request_user_review'],
    });
    const client = await connect(gateway.url, limited.token, 'limited', formOptions);
    const seen = watch(client);
    const ids = await stepInProgress();
    const result = await toolsOf(client).ok('request_user_review', reviewArgs(ids));
    expect(seen.asked).toBe(0);
    expect(result.data).not.toHaveProperty('userAnswer');
    expect(await standing(ids.planId)).toEqual(AWAITING);
  });
});

describe('the elicitation round trip, step by step', () => {
  const manualOptions = {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: { pin: '2026-07-28' as const } },
    inputRequired: { autoFulfill: false },
  };
  const approve = { user_answer: { action: 'accept', content: { decision: 'approve' } } };
  let manual: Client;
  let ids: { planId: string; stepId: string };
  let first: {
    resultType?: string;
    inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
    requestState?: string;
  };
  const retry = (params: Record<string, unknown>, client = manual) =>
    client.callTool({ name: 'request_user_review', arguments: reviewArgs(ids), ...params } as never);

  beforeAll(async () => {
    manual = await connect(gateway.url, gateway.token, 'manual', manualOptions);
    ids = await stepInProgress();
    first = (await manual.callTool(
      { name: 'request_user_review', arguments: reviewArgs(ids) },
      { allowInputRequired: true },
    )) as typeof first;
  });

  it('asks with one form and a signed state, once the review is requested and audited', async () => {
    expect(first.resultType).toBe('input_required');
    expect(Object.keys(first.inputRequests ?? {})).toEqual(['user_answer']);
    expect(first.inputRequests!.user_answer!.method).toBe('elicitation/create');
    expect(first.inputRequests!.user_answer!.params).toMatchObject({ message: expect.stringContaining('Twelve') });
    expect(first.requestState).toMatch(/^v1\./);
    expect(await standing(ids.planId)).toEqual(AWAITING);
  });

  it('gives the person a day to answer (the signed expiry), not the ten minutes of a model round trip', () => {
    const body = first.requestState!.split('.')[1]!;
    const { exp } = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { exp: number };
    expect(exp - Date.now() / 1000).toBeGreaterThan(86_400 - 120);
    expect(exp - Date.now() / 1000).toBeLessThanOrEqual(86_400);
  });

  it('refuses a retry that carries no answer', async () => {
    const result = await retry({ requestState: first.requestState });
    expect(result.structuredContent).toMatchObject({ error: { code: 'ELICITATION_ANSWER_MISSING' } });
  });

  it('refuses the state replayed with other arguments, recording nothing', async () => {
    const result = await manual.callTool({
      name: 'request_user_review',
      arguments: { ...reviewArgs(ids), summary: 'Something else.' },
      inputResponses: approve,
      requestState: first.requestState,
    } as never);
    expect(result.structuredContent).toMatchObject({ error: { code: 'ELICITATION_STATE_MISMATCH' } });
    expect(await standing(ids.planId)).toEqual(AWAITING);
  });

  it('refuses a tampered state as a protocol error', async () => {
    const state = first.requestState!;
    const tampered = `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`;
    await expect(retry({ inputResponses: approve, requestState: tampered })).rejects.toThrow(
      /Invalid or expired requestState/,
    );
  });

  it('refuses the state under another token', async () => {
    const other = await gateway.admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test', name: 'second device' });
    const stranger = await connect(gateway.url, other.token, 'stranger', manualOptions);
    await expect(retry({ inputResponses: approve, requestState: first.requestState }, stranger)).rejects.toThrow(
      /Invalid or expired requestState/,
    );
    expect(await standing(ids.planId)).toEqual(AWAITING);
  });

  it.each([
    [
      'a decision the form does not offer',
      { decision: 'maybe' },
      /"decision" must be one of approve, reject, modify, skip/,
    ],
    ['a field the form does not have', { decision: 'approve', planId: 'x' }, /"planId" is not a field of the form/],
    ['no decision', { feedback: 'Hmm.' }, /"decision" must be answered/],
  ])('refuses %s as a tool error, recording nothing', async (_, content, message) => {
    const result = await retry({
      inputResponses: { user_answer: { action: 'accept', content } },
      requestState: first.requestState,
    });
    expectToolError(toolsAnswer(result), 'INVALID_ANSWER', message, /Nothing was recorded/);
    expect(await standing(ids.planId)).toEqual(AWAITING);
  });

  it('records the answer on another replica (no replica memory), and refuses to record it twice', async () => {
    const replica: FastifyInstance = await buildServer(gateway.runtime.deps);
    try {
      const address = await replica.listen({ host: '127.0.0.1', port: 0 });
      const elsewhere = await connect(`${address}/mcp`, gateway.token, 'elsewhere', manualOptions);
      const result = await retry({ inputResponses: approve, requestState: first.requestState }, elsewhere);
      expect(result.structuredContent).toMatchObject({
        stepStatus: 'completed',
        planStatus: 'executing',
        userAnswer: { action: 'accept', answer: { decision: 'approve' } },
      });
    } finally {
      await replica.close();
    }
    const after = await standing(ids.planId);
    expect(after).toEqual({ status: 'executing', reviews: ['review_requested', 'decision_submitted'] });

    // The same retry again: the plan has moved on, and the plan engine says so.
    const again = await retry({ inputResponses: approve, requestState: first.requestState });
    expectToolError(
      toolsAnswer(again),
      'PLAN_STATE_CONFLICT',
      /Plan is executing; submit_user_decision needs a plan that is awaiting_review/,
    );
    expect(await standing(ids.planId)).toEqual(after);
  });
});

describe('a late answer to an earlier form', () => {
  it('never decides the step’s newer review', async () => {
    const client = await connect(gateway.url, gateway.token, 'late', {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: { autoFulfill: false },
    });
    const ids = await stepInProgress();
    const ask = () =>
      client.callTool(
        { name: 'request_user_review', arguments: reviewArgs(ids) },
        { allowInputRequired: true },
      ) as Promise<{ requestState?: string }>;
    const answer = (state: string | undefined, content: Record<string, string>) =>
      client.callTool({
        name: 'request_user_review',
        arguments: reviewArgs(ids),
        inputResponses: { user_answer: { action: 'accept', content } },
        requestState: state,
      } as never);

    // Modify sends the step back to work; the same review is then asked for again, same arguments.
    const earlier = await ask();
    await answer(earlier.requestState, { decision: 'modify', feedback: 'Look again.' });
    const later = await ask();
    const before = await standing(ids.planId);
    expect(before).toEqual({
      status: 'awaiting_review',
      reviews: ['review_requested', 'decision_submitted', 'review_requested'],
    });

    const replayed = await answer(earlier.requestState, { decision: 'approve' });
    expectToolError(toolsAnswer(replayed), 'REVIEW_NOT_OPEN', /is no longer open/, /Nothing was recorded/);
    expect(await standing(ids.planId)).toEqual(before);

    const current = await answer(later.requestState, { decision: 'approve' });
    expect(current.structuredContent).toMatchObject({ stepStatus: 'completed', planStatus: 'executing' });
  });
});

describe('a token revoked between the two rounds', () => {
  it('gets no second round: nothing is recorded, the review stays open', async () => {
    const doomed = await gateway.admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test', name: 'doomed' });
    const client = await connect(gateway.url, doomed.token, 'doomed', {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: { autoFulfill: false },
    });
    const ids = await stepInProgress();
    const first = (await client.callTool(
      { name: 'request_user_review', arguments: reviewArgs(ids) },
      { allowInputRequired: true },
    )) as { requestState?: string };
    await gateway.admin.revokeToken(doomed.id);
    await expect(
      client.callTool({
        name: 'request_user_review',
        arguments: reviewArgs(ids),
        inputResponses: { user_answer: { action: 'accept', content: { decision: 'approve' } } },
        requestState: first.requestState,
      } as never),
    ).rejects.toThrow();
    expect(await standing(ids.planId)).toEqual(AWAITING);
  });
});

function toolsAnswer(result: { isError?: boolean; structuredContent?: unknown }) {
  return { isError: Boolean(result.isError), data: (result.structuredContent ?? {}) as Record<string, never> };
}
