import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import type { Era } from './official-client.js';
import { connectInjected } from './inject-client.js';
import { answerResearchTools } from './research-replies.js';
import { researchRecords } from './research-records.js';
import { ADA, ADA_TOKEN, buildStubServer, member, stubAuthenticator, stubTools } from './stub-deps.js';

// completion/complete with the official MCP client in both protocol eras, over inject() against
// stub services: plan IDs found by words of the plan's name or question (the caller's
// organization only; another org's plan is never offered), media types, depths and step types,
// for prompt arguments and resource-template variables alike; and prompts/list's cache hint.

const EVE_TOKEN = `qry_${'e'.repeat(43)}`;
const WRITER = `qry_${'w'.repeat(43)}`;
let app: FastifyInstance;
const clients = {} as Record<Era | 'rival' | 'writeOnly', Client>;
const plans = {} as Record<'lithium' | 'battery' | 'glacier' | 'rival', string>;
let artifactId = '';

beforeAll(async () => {
  const records = researchRecords();
  const tools = stubTools();
  answerResearchTools(tools.stub, records);
  const eve = member('eve', 'rival');
  ({ app } = await buildStubServer({
    tools,
    authenticator: stubAuthenticator({
      [ADA_TOKEN]: ADA,
      [WRITER]: member('ada', 'acme', ['quarry:write']),
      [EVE_TOKEN]: eve,
    }),
  }));
  clients.modern = await connectInjected(app, ADA_TOKEN, 'modern');
  clients.legacy = await connectInjected(app, ADA_TOKEN, 'legacy');
  clients.writeOnly = await connectInjected(app, WRITER, 'modern');
  clients.rival = await connectInjected(app, EVE_TOKEN, 'legacy');
  const create = (orgId: string, name: string, researchQuestion: string) =>
    records.addPlan(orgId, { name, researchQuestion, steps: [['search', 'Find.']] }).planId;
  plans.battery = create(ADA.orgId, 'Battery supply', 'Where does the lithium come from?');
  plans.glacier = create(ADA.orgId, 'Glacier retreat', 'How fast do Alpine glaciers melt?');
  plans.lithium = create(ADA.orgId, 'Lithium prices 2026', 'How did prices move?');
  plans.rival = create(eve.orgId, 'Lithium prices, stolen', 'What does Acme pay for lithium?');
  artifactId = records.addArtifact(ADA.orgId, {
    artifactType: 'finding',
    title: 'Spot price series',
    content: { prices: [1, 2] },
  }).id;
});

afterAll(async () => {
  for (const client of Object.values(clients)) await client?.close();
  await app?.close();
});

const promptRef = (name: string) => ({ type: 'ref/prompt' as const, name });
const templateRef = (uri: string) => ({ type: 'ref/resource' as const, uri });
type Ref = ReturnType<typeof promptRef> | ReturnType<typeof templateRef>;
const valuesOf = async (client: Client, ref: Ref, name: string, value: string) =>
  (await client.complete({ ref, argument: { name, value } })).completion.values;

describe.each(['modern', 'legacy'] as const)('completion/complete (%s era)', (era) => {
  it('finds plan IDs by words of the name or question, in any order, named plans first', async () => {
    const client = clients[era];
    expect(await valuesOf(client, promptRef('resume_research'), 'planId', 'lithium')).toEqual([
      plans.lithium,
      plans.battery,
    ]);
    expect(await valuesOf(client, promptRef('deliver_output'), 'planId', 'prices Lith')).toEqual([plans.lithium]);
    expect(await valuesOf(client, promptRef('review_step'), 'planId', 'alpine')).toEqual([plans.glacier]);
    expect(await valuesOf(client, promptRef('review_step'), 'planId', 'zebra')).toEqual([]);
    // Nothing typed: the most recently updated first.
    expect(await valuesOf(client, promptRef('resume_research'), 'planId', '')).toEqual([
      plans.lithium,
      plans.glacier,
      plans.battery,
    ]);
    // The start of an ID.
    expect(await valuesOf(client, promptRef('add_step'), 'planId', plans.glacier.slice(0, 8))).toEqual([plans.glacier]);
  });

  it('completes plan IDs of the resource templates the same way', async () => {
    for (const uri of ['quarry://plans/{planId}', 'quarry://plans/{planId}/report'])
      expect(await valuesOf(clients[era], templateRef(uri), 'planId', 'glacier')).toEqual([plans.glacier]);
    expect(await valuesOf(clients[era], templateRef('quarry://artifacts/{artifactId}'), 'artifactId', 'spot')).toEqual([
      artifactId,
    ]);
  });

  it("never offers another org's plan, not even by its ID", async () => {
    const offered = await valuesOf(clients[era], promptRef('resume_research'), 'planId', 'stolen');
    expect(offered).toEqual([]);
    expect(await valuesOf(clients[era], promptRef('resume_research'), 'planId', plans.rival.slice(0, 13))).toEqual([]);
    expect(await valuesOf(clients[era], templateRef('quarry://plans/{planId}'), 'planId', 'lithium')).not.toContain(
      plans.rival,
    );
  });

  it('completes media types, depths and step types from their closed lists', async () => {
    const client = clients[era];
    expect(await valuesOf(client, promptRef('deliver_output'), 'mediaType', 'p')).toEqual(['powerpoint']);
    expect(await valuesOf(client, promptRef('deliver_output'), 'mediaType', '')).toEqual([
      'conversation',
      'markdown',
      'html',
      'word',
      'excel',
      'powerpoint',
    ]);
    expect(await valuesOf(client, promptRef('start_research'), 'depth', '')).toEqual(['quick', 'standard', 'deep']);
    expect(await valuesOf(client, promptRef('start_research'), 'depth', 'D')).toEqual(['deep']);
    expect(await valuesOf(client, promptRef('add_step'), 'stepType', 'c')).toEqual([
      'critique',
      'checkpoint',
      'custom',
    ]);
    expect(await valuesOf(client, promptRef('start_research'), 'question', 'Why')).toEqual([]);
  });

  it.each([
    [promptRef('summarize'), 'planId', /Unknown prompt: summarize/],
    [promptRef('start_research'), 'planId', /start_research has no argument "planId"/],
    [templateRef('quarry://notes/{noteId}'), 'noteId', /Unknown resource template/],
    [templateRef('quarry://plans/{planId}'), 'stepId', /has no variable "stepId"/],
  ])('%j %s is an invalid-params error', async (ref, name, message) => {
    await expect(clients[era].complete({ ref, argument: { name, value: '' } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(message),
    });
  });
});

it('offers the owner its own plan', async () => {
  expect(await valuesOf(clients.rival, promptRef('resume_research'), 'planId', 'lithium')).toEqual([plans.rival]);
});

it('offers no plans to a credential without the read scope, and refuses it a prompt about a plan as beyond its scope', async () => {
  expect(await valuesOf(clients.writeOnly, promptRef('resume_research'), 'planId', 'lithium')).toEqual([]);
  // The one insufficient-scope answer (a 403 the client reads as a step-up), as for a read tool.
  await expect(
    clients.writeOnly.getPrompt({ name: 'resume_research', arguments: { planId: plans.lithium } }),
  ).rejects.toMatchObject({ requiredScope: 'quarry:read', message: expect.stringContaining('quarry:read') });
});

it('lets any cache keep prompts/list: it is the same for every caller (2026-07-28)', async () => {
  const result = await clients.modern.listPrompts();
  expect(result).toMatchObject({ ttlMs: 3_600_000, cacheScope: 'public' });
});
