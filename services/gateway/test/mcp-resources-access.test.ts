import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import type { Era } from './official-client.js';
import { connectInjected, type InjectedAnswer } from './inject-client.js';
import { answerResearchTools } from './research-replies.js';
import { researchRecords } from './research-records.js';
import { ADA, ADA_TOKEN, buildStubServer, member, stubAuthenticator, stubTools } from './stub-deps.js';
import { toolsOf } from './tool-answers.js';

// Who may read which resources, how long a client may keep them, and how the list pages: the
// list of an org with more items than a page, most recent first across plans and deliverables
// without skipping or repeating; cache hints on every 2026-07-28 list and read; a token limited
// to some tools sees only the resources of those tools, and one without quarry:read none (HTTP
// 403 with the scope's challenge). Official clients over inject() against stub services.

const READER = `qry_${'r'.repeat(43)}`;
const WRITER = `qry_${'w'.repeat(43)}`;
const writerPrincipal = member('walt', 'acme', ['quarry:write']);
const tools = stubTools();
let app: FastifyInstance;
const clients: Client[] = [];
const expected: string[] = [];
const writerAnswers: InjectedAnswer[] = [];
let limited: Record<Era, Client>;
let writer: Client;
let modern: Client;
let legacy: Client;
let planId = '';
let outputId = '';

beforeAll(async () => {
  const records = researchRecords();
  answerResearchTools(tools.stub, records);
  ({ app } = await buildStubServer({
    tools,
    authenticator: stubAuthenticator({
      [ADA_TOKEN]: ADA,
      [READER]: member('ada', 'acme', ['quarry:read'], ['list_plans', 'get_plan_status']),
      [WRITER]: writerPrincipal,
    }),
  }));
  modern = await connectInjected(app, ADA_TOKEN, 'modern');
  legacy = await connectInjected(app, ADA_TOKEN, 'legacy');
  // 13 plans, each followed by a deliverable: 26 items, more than a page of 20.
  for (let i = 0; i < 13; i++) {
    planId = records.addPlan(ADA.orgId, { name: `Plan ${i}`, researchQuestion: `Question ${i}?` }).planId;
    outputId = records.addOutput(ADA.orgId, {
      planId,
      mediaType: 'markdown',
      title: `Brief ${i}`,
      content: `# ${i}`,
    }).outputId;
    expected.unshift(`quarry://plans/${planId}`, `quarry://plans/${planId}/report`);
    expected.unshift(`quarry://outputs/${outputId}`);
  }
  limited = {
    legacy: await connectInjected(app, READER, 'legacy'),
    modern: await connectInjected(app, READER, 'modern'),
  };
  writer = await connectInjected(app, WRITER, 'modern', writerAnswers);
  clients.push(modern, legacy, limited.legacy, limited.modern, writer);
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await app?.close();
});

/** The list page by page (listResources() without a cursor would gather every page itself). */
async function listAll(client: Client): Promise<{ uris: string[]; pages: number }> {
  const uris: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = (await client.request({ method: 'resources/list', params: cursor ? { cursor } : {} })) as {
      resources: { uri: string }[];
      nextCursor?: string;
    };
    uris.push(...page.resources.map((r) => r.uri));
    cursor = page.nextCursor;
    pages++;
  } while (cursor && pages < 20);
  return { uris, pages };
}

describe.each<Era>(['legacy', 'modern'])('resources list and access (%s client)', (era) => {
  const client = () => (era === 'modern' ? modern : legacy);

  it('pages the list most recent first across plans and deliverables, none skipped or repeated', async () => {
    const { uris, pages } = await listAll(client());
    expect(uris.length).toBe(expected.length);
    expect(pages).toBe(2);
    expect(uris).toEqual(expected);
  });

  it('refuses a cursor it did not make', async () => {
    for (const cursor of ['nonsense', Buffer.from('[{"skip":99},null]').toString('base64url')])
      await expect(client().listResources({ cursor })).rejects.toMatchObject({ code: -32602 });
  });

  it('shows a token limited to list_plans and get_plan_status only plan status resources', async () => {
    const { uris } = await listAll(limited[era]);
    expect(uris).toEqual(expected.filter((u) => u.startsWith('quarry://plans/') && !u.endsWith('/report')));
    expect((await limited[era].readResource({ uri: `quarry://plans/${planId}` })).contents).toHaveLength(1);
    for (const uri of [`quarry://plans/${planId}/report`, `quarry://outputs/${outputId}`])
      await expect(limited[era].readResource({ uri })).rejects.toMatchObject({ code: -32602, data: { uri } });
  });
});

describe('cache hints', () => {
  it('come with every 2026-07-28 list and read: private for tenant data, short for plans', async () => {
    const hints = (result: Record<string, unknown>) => ({ ttlMs: result.ttlMs, cacheScope: result.cacheScope });
    expect(hints(await modern.listResourceTemplates())).toEqual({ ttlMs: 3_600_000, cacheScope: 'public' });
    expect(hints(await modern.listResources())).toEqual({ ttlMs: 10_000, cacheScope: 'private' });
    const read = async (uri: string) => hints(await modern.readResource({ uri }));
    expect(await read(`quarry://plans/${planId}`)).toEqual({ ttlMs: 5_000, cacheScope: 'private' });
    expect(await read(`quarry://plans/${planId}/report`)).toEqual({ ttlMs: 5_000, cacheScope: 'private' });
    expect(await read(`quarry://outputs/${outputId}`)).toEqual({ ttlMs: 600_000, cacheScope: 'private' });
  });

  it('are not sent to a 2025-era client, whose results have no such fields', async () => {
    const result = (await legacy.readResource({ uri: `quarry://plans/${planId}` })) as Record<string, unknown>;
    expect(result).not.toHaveProperty('ttlMs');
  });
});

describe('scopes', () => {
  it('refuses resources to a token without quarry:read', async () => {
    const refusal = { message: expect.stringMatching(/quarry:read/), requiredScope: 'quarry:read' };
    await expect(writer.listResources()).rejects.toMatchObject(refusal);
    await expect(writer.readResource({ uri: `quarry://plans/${randomUUID()}` })).rejects.toMatchObject(refusal);
    // Refused over HTTP (403, a challenge naming the scope, the JSON-RPC error with the request's
    // id) before anything is read for it.
    const refused = writerAnswers.filter((a) => a.rpc?.method?.startsWith('resources/'));
    expect(refused.map((a) => [a.rpc!.method, a.status])).toEqual([
      ['resources/list', 403],
      ['resources/read', 403],
    ]);
    for (const answer of refused) {
      expect(answer.headers.get('www-authenticate')).toMatch(/error="insufficient_scope", scope="quarry:read"/);
      expect(JSON.parse(answer.body)).toMatchObject({
        id: answer.rpc!.id,
        error: { code: -32004, data: { code: 'INSUFFICIENT_SCOPE', scope: 'quarry:read' } },
      });
    }
    expect(tools.stub.calls.filter((c) => c.principal.tokenId === writerPrincipal.tokenId)).toEqual([]);
  });
});

describe('resource links', () => {
  it('are bounded: a list of 13 plans links the first 10, in its order', async () => {
    const result = await modern.callTool({ name: 'list_plans', arguments: { limit: 20 } });
    const plans = (result.structuredContent as { plans: { planId: string }[] }).plans;
    expect(plans).toHaveLength(13);
    const links = (result.content as { type: string; uri?: string }[]).filter((c) => c.type === 'resource_link');
    expect(links.map((l) => l.uri)).toEqual(plans.slice(0, 10).map((p) => `quarry://plans/${p.planId}`));
  });
});

describe('long text', () => {
  it("comes a budget's worth at a time, and the resource says which call reads on", async () => {
    const text = 'Lithium. '.repeat(40_000);
    const stored = await toolsOf(modern).ok('store_research', {
      artifactType: 'analysis',
      title: 'Long analysis',
      content: { kind: 'long' },
      contentText: text,
      tags: [],
    });
    const uri = `quarry://artifacts/${stored.data.id as string}`;
    const read = JSON.parse(((await legacy.readResource({ uri })).contents[0] as { text: string }).text);
    expect(read.page).toMatchObject({ totalBytes: text.length, offset: 0 });
    expect(read.contentText.length).toBe(read.page.returnedBytes);
    expect(read.contentText.length).toBeLessThan(text.length);
    expect(read.readOn).toMatchObject({
      tool: 'get_artifact',
      arguments: { id: stored.data.id, cursor: read.page.nextCursor },
    });
    const rest = await toolsOf(legacy).ok('get_artifact', read.readOn.arguments);
    expect(read.contentText + rest.data.contentText).toBe(text);
  });
});
