import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client, ClientOptions } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { answerOf, listenOnLoopback, officialClients, speaking } from './official-client.js';
import { AWAITING, reviewArgs, stubReviewDesk } from './review-stub.js';
import { ADA, ADA_TOKEN, buildStubServer, member, stubAuthenticator, stubTools } from './stub-deps.js';
import { expectToolError } from './tool-answers.js';

// ADR 0033, the elicitation round trip step by step with a client that answers by hand: one form
// and a signed state once the review is requested, a day to answer, and the refusals of a retry
// — no answer, other arguments, a tampered state, another token's, an answer the form does not
// allow — recording nothing. The retry may reach another replica: everything it needs is in the
// signed state (two gateways with the same request-state key over the same services).

const SECOND_DEVICE = `qry_${'s'.repeat(43)}`;
const authenticator = stubAuthenticator({ [ADA_TOKEN]: ADA, [SECOND_DEVICE]: member('ada') });
const tools = stubTools();
const desk = stubReviewDesk(tools.stub);
const clients = officialClients();
const manualOptions: ClientOptions = {
  capabilities: { elicitation: { form: {} } },
  ...speaking('modern'),
  inputRequired: { autoFulfill: false },
};
const approve = { user_answer: { action: 'accept', content: { decision: 'approve' } } };
let app: FastifyInstance;
let url: string;
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
  ({ app } = await buildStubServer({ tools, authenticator }));
  url = await listenOnLoopback(app);
  manual = await clients.connect(url, ADA_TOKEN, manualOptions, 'manual');
  ids = desk.stepInProgress(ADA);
  first = (await manual.callTool(
    { name: 'request_user_review', arguments: reviewArgs(ids) },
    { allowInputRequired: true },
  )) as typeof first;
});
afterAll(async () => {
  await clients.closeAll();
  await app?.close();
});

/** Nothing recorded: the plan still awaits the review, and no decision reached the plan engine since `before`. */
function expectNothingRecorded(before: number) {
  expect(desk.standing(ids.planId)).toEqual(AWAITING);
  expect(desk.decisionsSubmitted()).toBe(before);
}

describe('the elicitation round trip, step by step', () => {
  it('asks with one form and a signed state, once the review is requested and audited', () => {
    expect(first.resultType).toBe('input_required');
    expect(Object.keys(first.inputRequests ?? {})).toEqual(['user_answer']);
    expect(first.inputRequests!.user_answer!.method).toBe('elicitation/create');
    expect(first.inputRequests!.user_answer!.params).toMatchObject({ message: expect.stringContaining('Twelve') });
    expect(first.requestState).toMatch(/^v1\./);
    expectNothingRecorded(0);
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
    expectNothingRecorded(0);
  });

  it('refuses the state replayed with other arguments, recording nothing', async () => {
    const result = await manual.callTool({
      name: 'request_user_review',
      arguments: { ...reviewArgs(ids), summary: 'Something else.' },
      inputResponses: approve,
      requestState: first.requestState,
    } as never);
    expect(result.structuredContent).toMatchObject({ error: { code: 'ELICITATION_STATE_MISMATCH' } });
    expectNothingRecorded(0);
  });

  it('refuses a tampered state as a protocol error', async () => {
    const state = first.requestState!;
    const tampered = `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`;
    await expect(retry({ inputResponses: approve, requestState: tampered })).rejects.toThrow(
      /Invalid or expired requestState/,
    );
    expectNothingRecorded(0);
  });

  it('refuses the state under another token', async () => {
    const stranger = await clients.connect(url, SECOND_DEVICE, manualOptions, 'stranger');
    await expect(retry({ inputResponses: approve, requestState: first.requestState }, stranger)).rejects.toThrow(
      /Invalid or expired requestState/,
    );
    expectNothingRecorded(0);
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
    expectToolError(answerOf(result), 'INVALID_ANSWER', message, /Nothing was recorded/);
    expectNothingRecorded(0);
  });

  it('records the answer on another replica (no replica memory), and refuses to record it twice', async () => {
    // Another gateway over the same services, with the same request-state key (buildStubServer's).
    const { app: replica } = await buildStubServer({ tools, authenticator });
    try {
      const elsewhere = await clients.connect(await listenOnLoopback(replica), ADA_TOKEN, manualOptions, 'elsewhere');
      const result = await retry({ inputResponses: approve, requestState: first.requestState }, elsewhere);
      expect(result.structuredContent).toMatchObject({
        stepStatus: 'completed',
        planStatus: 'executing',
        userAnswer: { action: 'accept', answer: { decision: 'approve' } },
      });
      await elsewhere.close();
    } finally {
      await replica.close();
    }
    const after = desk.standing(ids.planId);
    expect(after).toEqual({ status: 'executing', reviews: ['review_requested', 'decision_submitted'] });

    // The same retry again: the plan has moved on, and the plan engine says so.
    const again = await retry({ inputResponses: approve, requestState: first.requestState });
    expectToolError(
      answerOf(again),
      'PLAN_STATE_CONFLICT',
      /Plan is executing; submit_user_decision needs a plan that is awaiting_review/,
    );
    expect(desk.standing(ids.planId)).toEqual(after);
  });
});
