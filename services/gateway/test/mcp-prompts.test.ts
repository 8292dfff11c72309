import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import type { Era } from './official-client.js';
import { connectInjected } from './inject-client.js';
import { answerResearchTools } from './research-replies.js';
import { researchRecords } from './research-records.js';
import { ADA, ADA_TOKEN, buildStubServer, member, stubAuthenticator, stubTools } from './stub-deps.js';

// Prompts with the official MCP client in both protocol eras, over inject() against stub
// services: the workflow prompts are listed, each one comes back with the plan's current state
// read with the caller's own credential, bad arguments are invalid params, and another org's
// plan is refused exactly like one that never existed.

const EVE_TOKEN = `qry_${'e'.repeat(43)}`;
let app: FastifyInstance;
const clients = {} as Record<Era | 'rival', Client>;
let planId = '';
let reviewPlanId = '';
let reviewStepId = '';
let rivalPlanId = '';

beforeAll(async () => {
  const records = researchRecords();
  const tools = stubTools();
  answerResearchTools(tools.stub, records);
  const eve = member('eve', 'rival');
  ({ app } = await buildStubServer({
    tools,
    authenticator: stubAuthenticator({ [ADA_TOKEN]: ADA, [EVE_TOKEN]: eve }),
  }));
  clients.modern = await connectInjected(app, ADA_TOKEN, 'modern');
  clients.legacy = await connectInjected(app, ADA_TOKEN, 'legacy');
  clients.rival = await connectInjected(app, EVE_TOKEN, 'modern');
  planId = records.addPlan(ADA.orgId, {
    name: 'Lithium prices',
    researchQuestion: 'How did lithium prices move in 2026?',
    steps: [
      ['search', 'Find price series.'],
      ['synthesize', 'Explain the moves.'],
    ],
  }).planId;
  const review = records.addPlan(ADA.orgId, {
    name: 'Glacier retreat',
    researchQuestion: 'How fast do Alpine glaciers retreat?',
    steps: [['checkpoint', 'Agree the regions with the user.']],
  });
  // Its step claimed and put up for review (get_next_step, request_user_review).
  records.awaitReview(review, 1);
  reviewPlanId = review.planId;
  reviewStepId = review.steps[0]!.stepId;
  rivalPlanId = records.addPlan(eve.orgId, {
    name: 'Lithium secrets',
    researchQuestion: 'What does Acme know about lithium?',
    steps: [['search', 'Snoop.']],
  }).planId;
});

afterAll(async () => {
  for (const client of Object.values(clients)) await client?.close();
  await app?.close();
});

const textOf = (result: { messages: { content: { type: string; text?: string } }[] }) =>
  result.messages[0]!.content.text ?? '';

describe.each(['modern', 'legacy'] as const)('prompts (%s era)', (era) => {
  it('declares prompts and completions, and explains the research loop in its instructions', () => {
    const client = clients[era];
    expect(client.getServerCapabilities()).toMatchObject({ prompts: { listChanged: false }, completions: {} });
    const instructions = client.getInstructions() ?? '';
    for (const tool of ['create_research_plan', 'get_next_step', 'submit_step_result', 'store_research_output'])
      expect(instructions).toContain(tool);
  });

  it('lists the workflow prompts with their arguments', async () => {
    const { prompts } = await clients[era].listPrompts();
    expect(prompts.map((p) => p.name)).toEqual([
      'start_research',
      'resume_research',
      'deliver_output',
      'review_step',
      'add_step',
    ]);
    expect(prompts.find((p) => p.name === 'start_research')!.arguments).toEqual([
      expect.objectContaining({ name: 'question', required: true }),
      expect.objectContaining({ name: 'depth', required: false }),
    ]);
  });

  it('start_research sizes the plan by depth (standard by default)', async () => {
    const deep = await clients[era].getPrompt({
      name: 'start_research',
      arguments: { question: 'Why do glaciers retreat?', depth: 'deep' },
    });
    expect(textOf(deep)).toMatch(/Question: Why do glaciers retreat\?[\s\S]*7 to 12 steps[\s\S]*create_research_plan/);
    const standard = await clients[era].getPrompt({ name: 'start_research', arguments: { question: 'Why?' } });
    expect(textOf(standard)).toContain('Depth: standard. Plan 4 to 6 steps');
  });

  it('resume_research embeds the plan as the caller reads it, and links its resource', async () => {
    const result = await clients[era].getPrompt({ name: 'resume_research', arguments: { planId } });
    const text = textOf(result);
    expect(text).toContain(`"Lithium prices" (planId ${planId})`);
    expect(text).toMatch(/Status: planning; 0% of 2 steps done\./);
    expect(text).toContain('Pending: 1. search: Find price series.; 2. synthesize: Explain the moves.');
    expect(text).toContain(`get_research_context with planId ${planId}`);
    expect(result.messages[1]!.content).toMatchObject({ type: 'resource_link', uri: `quarry://plans/${planId}` });
  });

  it('deliver_output asks for the form given, and how to store it', async () => {
    const text = textOf(
      await clients[era].getPrompt({ name: 'deliver_output', arguments: { planId, mediaType: 'word' } }),
    );
    expect(text).toContain(`"Lithium prices" (planId ${planId}) as word`);
    expect(text).toMatch(/base64-encoded[\s\S]*store_research_output \(planId [^,]+, mediaType word/);
  });

  it('review_step shows the step that waits for the user', async () => {
    const text = textOf(await clients[era].getPrompt({ name: 'review_step', arguments: { planId: reviewPlanId } }));
    expect(text).toContain(`Step 1 (checkpoint), stepId ${reviewStepId}: Agree the regions with the user.`);
    expect(text).toContain(`submit_user_decision (planId ${reviewPlanId}, stepId ${reviewStepId}`);
  });

  it('add_step adds a step of the kind given with modify_plan', async () => {
    const text = textOf(
      await clients[era].getPrompt({ name: 'add_step', arguments: { planId, stepType: 'critique' } }),
    );
    expect(text).toMatch(/modify_plan with planId \S+ action add_steps and one step: stepType critique/);
  });

  it.each([
    ['start_research', {}, /start_research needs the argument "question"/],
    ['start_research', { question: 'Why?', depth: 'medium' }, /use one of: quick, standard, deep/],
    ['start_research', { question: 'Why?', topic: 'glaciers' }, /has no argument "topic"/],
    ['deliver_output', { planId: randomUUID(), mediaType: 'pdf' }, /"pdf" is not a valid mediaType/],
    ['resume_research', { planId: 'lithium prices' }, /not a plan ID/],
    ['summarize', {}, /Unknown prompt: summarize/],
  ])('%s %j is a clear invalid-params error', async (name, args, message) => {
    await expect(clients[era].getPrompt({ name, arguments: args as Record<string, string> })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(message),
    });
  });

  it("another org's plan is refused exactly like one that never existed", async () => {
    const refusal = async (id: string) => {
      const error = await clients[era].getPrompt({ name: 'resume_research', arguments: { planId: id } }).then(
        () => undefined,
        (e: { code: number; message: string }) => e,
      );
      return { code: error?.code, message: error?.message.replace(id, '<id>') };
    };
    const foreign = await refusal(rivalPlanId);
    expect(foreign).toEqual({
      code: -32602,
      message: expect.stringContaining('No research plan <id> in your organization'),
    });
    expect(await refusal(randomUUID())).toEqual(foreign);
    // The plan's owner gets it.
    await expect(
      clients.rival.getPrompt({ name: 'review_step', arguments: { planId: rivalPlanId } }),
    ).resolves.toBeTruthy();
  });
});
