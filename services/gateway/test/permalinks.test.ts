import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { createPermalinks } from '@quarry/gateway';
import type { FastifyInstance } from 'fastify';
import { connectInjected } from './inject-client.js';
import { answerLibraryReads } from './library-replies.js';
import type { Era } from './official-client.js';
import { answerResearchTools } from './research-replies.js';
import { researchRecords } from './research-records.js';
import { ADA, ADA_TOKEN, buildStubServer, stubTools } from './stub-deps.js';

// Stored items' urls as an MCP client gets them, over inject() against stub services. With a
// public URL every url a tool returns, and every link to a stored item, is the item's permalink
// (search, fetch, search_sources, the read tools, what store_research links to, the plan report's
// links), links to plans stay quarry:// (no page yet), search and fetch answer exactly one text
// item, and resources/read reads a permalink as the quarry:// URI it stands for. Without a public URL every address is
// quarry:// as before. (The services' own answers: services/search and artifact-store tests.)

const PUBLIC = 'https://quarry.example';
type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const records = researchRecords();
const acme = ADA.orgId;
const plan = records.addPlan(acme, { name: 'Lithium prices' });
const artifact = records.addArtifact(acme, {
  planId: plan.planId,
  artifactType: 'finding',
  title: 'Lithium fell',
  content: { text: 'Lithium fell 20%.' },
  contentText: 'Lithium carbonate fell 20% over 2024.',
});
const brief = records.addOutput(acme, {
  planId: plan.planId,
  mediaType: 'markdown',
  title: 'Lithium brief',
  content: '# Lithium\n\nPrices fell.',
});
const deck = records.addOutput(acme, {
  planId: plan.planId,
  mediaType: 'word',
  title: 'Lithium deck',
  content: Buffer.from('PK\u0003\u0004 lithium').toString('base64'),
});
const extraction = records.addExtraction(acme, {
  data: { lithium: 'fell' },
  extractionSchema: { type: 'object' },
  sourceText: 'Lithium fell.',
});

const apps: FastifyInstance[] = [];
const clients: Client[] = [];
async function gateway(publicUrl: string | undefined, era: Era) {
  const tools = stubTools(undefined, { permalinks: createPermalinks(publicUrl) });
  answerResearchTools(tools.stub, records);
  answerLibraryReads(tools.stub, records);
  const { app } = await buildStubServer({ tools, permalinks: createPermalinks(publicUrl) });
  apps.push(app);
  const client = await connectInjected(app, ADA_TOKEN, era);
  clients.push(client);
  return client;
}
afterAll(async () => {
  for (const client of clients) await client.close();
  for (const app of apps) await app.close();
});

/** A tool's result as the client got it, with the JSON of its one text item parsed. */
async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as Loose;
  expect(result.isError).toBeFalsy();
  return result;
}

describe.each<Era>(['legacy', 'modern'])('with a public URL (%s client)', (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await gateway(PUBLIC, era);
  });

  it('search answers one text item: {results: [{id, title, url}]} with permalinks, also as structuredContent', async () => {
    const result = await call(client, 'search', { query: 'lithium' });
    expect(result.content).toHaveLength(1);
    expect(result.content[0].type).toBe('text');
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    expect(result.structuredContent.results).toEqual([
      { id: extraction.id, title: 'Extraction (lithium)', url: `${PUBLIC}/app/extractions/${extraction.id}` },
      { id: brief.outputId, title: 'Lithium brief', url: `${PUBLIC}/app/outputs/${brief.outputId}` },
      { id: artifact.id, title: 'Lithium fell', url: `${PUBLIC}/app/artifacts/${artifact.id}` },
    ]);
  });

  it('fetch answers one text item: {id, title, text, url, metadata} with the permalink', async () => {
    const result = await call(client, 'fetch', { id: artifact.id });
    expect(result.content).toHaveLength(1);
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    expect(result.structuredContent).toEqual({
      id: artifact.id,
      title: 'Lithium fell',
      text: 'Lithium carbonate fell 20% over 2024.',
      url: `${PUBLIC}/app/artifacts/${artifact.id}`,
      metadata: expect.objectContaining({ source_table: 'research_artifact' }),
    });
  });

  it("search_sources' urls and their links are permalinks; what store_research links to too", async () => {
    const result = await call(client, 'search_sources', { query: 'lithium brief' });
    const permalink = `${PUBLIC}/app/outputs/${brief.outputId}`;
    expect(result.structuredContent.results[0].url).toBe(permalink);
    expect(result.content.slice(1)).toEqual([{ type: 'resource_link', uri: permalink, name: 'Lithium brief' }]);
    const stored = await call(client, 'store_research', { artifactType: 'finding', title: 'Nickel', content: {} });
    expect(stored.content.slice(1).map((c: Loose) => c.uri)).toEqual([
      `${PUBLIC}/app/artifacts/${stored.structuredContent.id}`,
    ]);
  });

  it("gives the read tools' urls as permalinks, keeps an embedded document's uri and plan links as quarry://", async () => {
    expect((await call(client, 'get_artifact', { id: artifact.id })).structuredContent.url).toBe(
      `${PUBLIC}/app/artifacts/${artifact.id}`,
    );
    const document = await call(client, 'get_research_output', { outputId: deck.outputId });
    expect(document.structuredContent.url).toBe(`${PUBLIC}/app/outputs/${deck.outputId}`);
    expect(document.content[1]).toMatchObject({
      type: 'resource',
      resource: { uri: `quarry://outputs/${deck.outputId}` },
    });
    const listed = await call(client, 'list_research_outputs', { planId: plan.planId });
    expect(listed.structuredContent.outputs.map((o: Loose) => o.url)).toEqual([
      `${PUBLIC}/app/outputs/${deck.outputId}`,
      `${PUBLIC}/app/outputs/${brief.outputId}`,
    ]);
    const created = await call(client, 'create_research_plan', {
      name: 'Cobalt',
      researchQuestion: 'Where does cobalt go?',
      steps: [{ stepType: 'search', instructions: 'Find' }],
    });
    expect(created.content.slice(1).map((c: Loose) => c.uri)).toEqual([
      `quarry://plans/${created.structuredContent.planId}`,
      `quarry://plans/${created.structuredContent.planId}/report`,
    ]);
  });

  it("links the plan report's artifacts and deliverables to their permalinks", async () => {
    const [report] = (await client.readResource({ uri: `quarry://plans/${plan.planId}/report` })).contents;
    const markdown = (report as Loose).text as string;
    expect(markdown).toContain(`[Lithium fell](${PUBLIC}/app/artifacts/${artifact.id})`);
    expect(markdown).toContain(`[Lithium brief](${PUBLIC}/app/outputs/${brief.outputId})`);
    expect(markdown).toContain(`quarry://plans/${plan.planId}`);
  });

  it('reads a permalink as a resource, as its quarry:// URI; another base names nothing', async () => {
    const permalink = `${PUBLIC}/app/artifacts/${artifact.id}`;
    const [byLink] = (await client.readResource({ uri: permalink })).contents;
    const [byUri] = (await client.readResource({ uri: `quarry://artifacts/${artifact.id}` })).contents;
    expect(byLink).toEqual({ ...byUri, uri: permalink });
    // A link given out before the web app (the library's path) still names its item.
    const legacy = `${PUBLIC}/library/artifact/${artifact.id}`;
    expect((await client.readResource({ uri: legacy })).contents[0]).toEqual({ ...byUri, uri: legacy });
    for (const other of [
      `https://elsewhere.example/app/artifacts/${artifact.id}`,
      `${PUBLIC}/app/artifacts/${artifact.id}/x`,
      `${PUBLIC}/x/app/artifacts/${artifact.id}`,
    ])
      await expect(client.readResource({ uri: other })).rejects.toMatchObject({ code: -32602, data: { uri: other } });
  });
});

describe.each<Era>(['legacy', 'modern'])('without a public URL (%s client)', (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await gateway(undefined, era);
  });

  it('every url and link is the quarry:// address, and search and fetch still answer one text item', async () => {
    const found = await call(client, 'search', { query: 'carbonate' });
    expect(found.content).toHaveLength(1);
    expect(found.structuredContent.results).toEqual([
      { id: artifact.id, title: 'Lithium fell', url: `quarry://artifacts/${artifact.id}` },
    ]);
    const fetched = await call(client, 'fetch', { id: `quarry://artifacts/${artifact.id}` });
    expect(fetched.content).toHaveLength(1);
    expect(fetched.structuredContent.url).toBe(`quarry://artifacts/${artifact.id}`);
    const [report] = (await client.readResource({ uri: `quarry://plans/${plan.planId}/report` })).contents;
    expect((report as Loose).text).toContain(`[Lithium fell](quarry://artifacts/${artifact.id})`);
    const sources = await call(client, 'search_sources', { query: 'carbonate' });
    expect(sources.structuredContent.results[0].url).toBe(`quarry://artifacts/${artifact.id}`);
    expect(sources.content[1]).toMatchObject({ type: 'resource_link', uri: `quarry://artifacts/${artifact.id}` });
    await expect(client.readResource({ uri: `${PUBLIC}/app/artifacts/${artifact.id}` })).rejects.toMatchObject({
      code: -32602,
    });
  });
});
