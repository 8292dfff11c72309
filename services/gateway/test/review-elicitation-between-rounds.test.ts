import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ClientOptions } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { answerOf, listenOnLoopback, officialClients, speaking } from './official-client.js';
import { AWAITING, reviewArgs, stubReviewDesk } from './review-stub.js';
import { ADA, ADA_TOKEN, buildStubServer, member, stubAuthenticator, stubTools } from './stub-deps.js';
import { expectToolError } from './tool-answers.js';

// ADR 0033: what changed between the two rounds of a review form decides its answer — a newer
// review of the same step is never decided by an answer to an earlier form (the plan engine
// refuses the review id the state carries), and a token refused meanwhile gets no second round.
// The official client over the real gateway, the plan engine's review rpcs stubbed (review-stub.ts).

const DOOMED_TOKEN = `qry_${'d'.repeat(43)}`;
const authenticator = stubAuthenticator({ [ADA_TOKEN]: ADA, [DOOMED_TOKEN]: member('ada') });
const tools = stubTools();
const desk = stubReviewDesk(tools.stub);
const clients = officialClients();
const manualOptions: ClientOptions = {
  capabilities: { elicitation: { form: {} } },
  ...speaking('modern'),
  inputRequired: { autoFulfill: false },
};
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  ({ app } = await buildStubServer({ tools, authenticator }));
  url = await listenOnLoopback(app);
});
afterAll(async () => {
  await clients.closeAll();
  await app?.close();
});

describe('a late answer to an earlier form', () => {
  it('never decides the step’s newer review', async () => {
    const client = await clients.connect(url, ADA_TOKEN, manualOptions, 'late');
    const ids = desk.stepInProgress(ADA);
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
    const before = desk.standing(ids.planId);
    expect(before).toEqual({
      status: 'awaiting_review',
      reviews: ['review_requested', 'decision_submitted', 'review_requested'],
    });

    const replayed = await answer(earlier.requestState, { decision: 'approve' });
    expectToolError(answerOf(replayed), 'REVIEW_NOT_OPEN', /is no longer open/, /Nothing was recorded/);
    expect(desk.standing(ids.planId)).toEqual(before);

    const current = await answer(later.requestState, { decision: 'approve' });
    expect(current.structuredContent).toMatchObject({ stepStatus: 'completed', planStatus: 'executing' });
  });
});

describe('a token revoked between the two rounds', () => {
  it('gets no second round: nothing is recorded, the review stays open', async () => {
    const client = await clients.connect(url, DOOMED_TOKEN, manualOptions, 'doomed');
    const ids = desk.stepInProgress(ADA);
    const first = (await client.callTool(
      { name: 'request_user_review', arguments: reviewArgs(ids) },
      { allowInputRequired: true },
    )) as { requestState?: string };
    expect(first.requestState).toBeDefined();
    const decisions = desk.decisionsSubmitted();
    // What the real authenticator answers for a revoked token (its own tests: authenticator.test.ts).
    authenticator.table.set(DOOMED_TOKEN, 'revoked');
    await expect(
      client.callTool({
        name: 'request_user_review',
        arguments: reviewArgs(ids),
        inputResponses: { user_answer: { action: 'accept', content: { decision: 'approve' } } },
        requestState: first.requestState,
      } as never),
    ).rejects.toThrow();
    expect(desk.standing(ids.planId)).toEqual(AWAITING);
    expect(desk.decisionsSubmitted()).toBe(decisions);
  });
});
