import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client, ClientOptions } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { type Era, listenOnLoopback, officialClients, speaking } from './official-client.js';
import { AWAITING, reviewArgs, stubReviewDesk } from './review-stub.js';
import { ADA, ADA_TOKEN, buildStubServer, member, stubAuthenticator, stubTools } from './stub-deps.js';
import { expectToolError, toolsOf } from './tool-answers.js';

// ADR 0033: who gets the pull flow of request_user_review rather than the review form — clients
// that cannot show a form, and tokens that could not record the answer — and who never sees the
// form at all (another org's plan is a missing one). The official client over the real gateway
// and tools, with the plan engine's review rpcs stubbed (review-stub.ts).

const EVE_TOKEN = `qry_${'e'.repeat(43)}`;
const LIMITED_TOKEN = `qry_${'l'.repeat(43)}`;
const authenticator = stubAuthenticator({
  [ADA_TOKEN]: ADA,
  [EVE_TOKEN]: member('eve', 'rival'),
  // Ada's token named "reviews only": it may not call submit_user_decision.
  [LIMITED_TOKEN]: member('ada', 'acme', ['quarry:read', 'quarry:write'], ['request_user_review']),
});
const tools = stubTools();
const desk = stubReviewDesk(tools.stub);
const clients = officialClients();
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

describe('clients that cannot show a form keep the pull flow', () => {
  const cases: [string, Era, ClientOptions][] = [
    ['a 2025-era client that declares elicitation', 'legacy', { capabilities: { elicitation: { form: {} } } }],
    ['a 2026-07-28 client without the capability', 'modern', {}],
    ['a 2026-07-28 client that offers URL elicitation only', 'modern', { capabilities: { elicitation: { url: {} } } }],
  ];
  it.each(cases)('%s', async (name, era, options) => {
    const client = await clients.connect(url, ADA_TOKEN, { ...options, ...speaking(era) }, name);
    let asked = 0;
    if (options.capabilities?.elicitation)
      client.setRequestHandler('elicitation/create', async () => {
        asked += 1;
        return { action: 'decline' };
      });
    const ids = desk.stepInProgress(ADA);
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
  const formOptions: ClientOptions = { capabilities: { elicitation: { form: {} } }, ...speaking('modern') };
  const watch = (client: Client) => {
    const seen = { asked: 0 };
    client.setRequestHandler('elicitation/create', async () => {
      seen.asked += 1;
      return { action: 'accept', content: { decision: 'approve' } };
    });
    return seen;
  };

  it('another organization: its plan is missing, exactly like an id that does not exist', async () => {
    const client = await clients.connect(url, EVE_TOKEN, formOptions, 'rival');
    const seen = watch(client);
    const ids = desk.stepInProgress(ADA);
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
    expect(desk.standing(ids.planId)).toEqual({ status: 'executing', reviews: [] });
  });

  it('a token that may not call submit_user_decision: the pull flow, which it cannot finish either', async () => {
    const client = await clients.connect(url, LIMITED_TOKEN, formOptions, 'limited');
    const seen = watch(client);
    const ids = desk.stepInProgress(ADA);
    const result = await toolsOf(client).ok('request_user_review', reviewArgs(ids));
    expect(seen.asked).toBe(0);
    expect(result.data).not.toHaveProperty('userAnswer');
    expect(desk.standing(ids.planId)).toEqual(AWAITING);
  });
});
