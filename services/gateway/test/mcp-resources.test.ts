import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import type { Era } from './official-client.js';
import { sha256, startResourcesWorld, WORD } from './resources-support.js';

// MCP resources with the official client in both protocol eras, over inject() against stub
// services (resources-support.ts): the six templates, the org's list (plans with their reports,
// deliverables; most recent first, paged), and reads of a plan, its report, an artifact, a text
// and a binary deliverable (bytes identical) and an extraction. Another org's id, a missing one
// and a malformed uri all get the same resource-not-found error; 2026-07-28 results carry their
// cache hints.

let world: Awaited<ReturnType<typeof startResourcesWorld>>;

beforeAll(async () => {
  world = await startResourcesWorld();
});
afterAll(async () => {
  await world?.close();
});

const client = (era: Era): Client => world.clients[era];
type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A read's error as the client sees it: code, message and data. */
async function readError(c: Client, uri: string): Promise<Loose> {
  const error = await c.readResource({ uri }).then(
    () => undefined,
    (e: unknown) => e as Loose,
  );
  expect(error).toBeDefined();
  return { code: error!.code, data: error!.data, message: error!.message };
}

describe.each<Era>(['legacy', 'modern'])('resources (%s client)', (era) => {
  it('lists the six templates with their variables', async () => {
    const { resourceTemplates } = await client(era).listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'quarry://plans/{planId}',
      'quarry://plans/{planId}/report',
      'quarry://artifacts/{artifactId}',
      'quarry://outputs/{outputId}',
      'quarry://extractions/{extractionId}',
      'quarry://entities/{entityId}',
    ]);
    for (const template of resourceTemplates) expect(template.description).toBeTruthy();
  });

  it("lists the org's plans with their reports and its deliverables, most recent first, in pages", async () => {
    const { ids } = world;
    const seen: Loose[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client(era).listResources(cursor ? { cursor } : {});
      seen.push(...page.resources);
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    const uris = seen.map((r) => r.uri);
    // The deliverables were stored after the plan last changed (its step result).
    expect(uris).toEqual([
      `quarry://outputs/${ids.wordId}`,
      `quarry://outputs/${ids.markdownId}`,
      `quarry://plans/${ids.planId}`,
      `quarry://plans/${ids.planId}/report`,
      `quarry://plans/${ids.older}`,
      `quarry://plans/${ids.older}/report`,
    ]);
    expect(uris.join(' ')).not.toContain(ids.rivalPlan);
    expect(seen[0]).toMatchObject({ name: 'Lithium report', mimeType: WORD, size: world.wordBytes.length });
    expect(seen[2]).toMatchObject({ name: 'Lithium prices', mimeType: 'application/json' });
    expect(seen[3]).toMatchObject({ mimeType: 'text/markdown' });
  });

  it('reads a plan as its status JSON', async () => {
    const uri = `quarry://plans/${world.ids.planId}`;
    const { contents } = await client(era).readResource({ uri });
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
    const status = JSON.parse((contents[0] as Loose).text as string);
    expect(status).toMatchObject({ planId: world.ids.planId, name: 'Lithium prices', totalSteps: 2 });
  });

  it('reads the plan report as markdown: question, steps, results, artifacts and deliverables with links', async () => {
    const { ids } = world;
    const uri = `quarry://plans/${ids.planId}/report`;
    const { contents } = await client(era).readResource({ uri });
    expect(contents[0]).toMatchObject({ uri, mimeType: 'text/markdown' });
    const text = (contents[0] as Loose).text as string;
    expect(text).toMatch(/^# Lithium prices\n/);
    expect(text).toContain('**Question:** What does Lithium prices find?');
    expect(text).toContain('Lithium fell 20% in 2024.');
    expect(text).toContain('**Confidence:** 0.8');
    expect(text).toContain(`[Lithium fell](quarry://artifacts/${ids.artifactId})`);
    expect(text).toContain(`[Lithium brief](quarry://outputs/${ids.markdownId})`);
    expect(text).toContain(`[Lithium report](quarry://outputs/${ids.wordId})`);
  });

  it('reads an artifact as JSON and an extraction as JSON', async () => {
    const { ids } = world;
    const artifact = (await client(era).readResource({ uri: `quarry://artifacts/${ids.artifactId}` }))
      .contents[0] as Loose;
    expect(artifact.mimeType).toBe('application/json');
    expect(JSON.parse(artifact.text)).toMatchObject({
      id: ids.artifactId,
      title: 'Lithium fell',
      contentText: 'Lithium carbonate fell 20% over 2024.',
    });
    const uri = `quarry://extractions/${ids.extractionId}`;
    const extraction = (await client(era).readResource({ uri })).contents[0] as Loose;
    expect(extraction).toMatchObject({ uri, mimeType: 'application/json' });
    expect(JSON.parse(extraction.text)).toMatchObject({ id: ids.extractionId, data: { metal: 'Lithium' }, url: uri });
  });

  it('reads a text deliverable as text and a Word one as a blob, byte-identical, each with its MIME type', async () => {
    const { ids } = world;
    const text = (await client(era).readResource({ uri: `quarry://outputs/${ids.markdownId}` })).contents[0] as Loose;
    expect(text).toMatchObject({ mimeType: 'text/markdown; charset=utf-8', text: world.markdown });
    const uri = `quarry://outputs/${ids.wordId}`;
    const word = (await client(era).readResource({ uri })).contents[0] as Loose;
    expect(word).toMatchObject({ uri, mimeType: WORD });
    expect(sha256(Buffer.from(word.blob as string, 'base64'))).toBe(sha256(world.wordBytes));
  });

  it("answers another org's id, a missing one and a malformed uri with the same not-found error", async () => {
    const { ids } = world;
    const probes = [
      `quarry://plans/${ids.rivalPlan}`,
      `quarry://plans/${ids.rivalPlan}/report`,
      'quarry://plans/00000000-0000-4000-8000-000000000000',
      'quarry://artifacts/not-a-uuid',
      `quarry://outputs/${ids.planId}`,
      `quarry://extractions/${ids.artifactId}`,
      'quarry://artifacts/',
      `quarry://artifacts/${ids.artifactId}/report`,
      'https://example.com/x',
    ];
    for (const uri of probes) {
      const error = await readError(client(era), uri);
      expect(error).toMatchObject({ code: -32602, data: { uri } });
      expect(error.message).toContain(`Resource not found: ${uri}`);
    }
    // The rival sees its own plan, and nothing of acme's.
    expect((await world.rival.readResource({ uri: `quarry://plans/${ids.rivalPlan}` })).contents).toHaveLength(1);
    expect(await readError(world.rival, `quarry://outputs/${ids.wordId}`)).toMatchObject({ code: -32602 });
    const rivalList = (await world.rival.listResources()).resources.map((r) => r.uri);
    expect(rivalList).toEqual([`quarry://plans/${ids.rivalPlan}`, `quarry://plans/${ids.rivalPlan}/report`]);
  });
});

describe.each<Era>(['legacy', 'modern'])('resource links in tool results (%s client)', (era) => {
  /** The resource_link items of a call's content, after its JSON text. */
  async function linksOf(name: string, args: Record<string, unknown>): Promise<Loose[]> {
    const result = await client(era).callTool({ name, arguments: args });
    expect(result.isError).toBeFalsy();
    const content = result.content as Loose[];
    expect(content[0]!.type).toBe('text');
    return content.slice(1).filter((c) => c.type === 'resource_link');
  }

  it('link what a call created: a plan and its report, an artifact, a deliverable, an extraction', async () => {
    const plan = await linksOf('create_research_plan', {
      name: 'Linked',
      researchQuestion: 'Are links there?',
      steps: [{ stepType: 'search', instructions: 'Look' }],
    });
    const planId = plan[0]!.uri.split('/').pop() as string;
    expect(plan).toEqual([
      { type: 'resource_link', uri: `quarry://plans/${planId}`, name: 'Linked', mimeType: 'application/json' },
      {
        type: 'resource_link',
        uri: `quarry://plans/${planId}/report`,
        name: 'Linked (report)',
        mimeType: 'text/markdown',
      },
    ]);
    const artifact = await linksOf('store_research', {
      planId,
      artifactType: 'finding',
      title: 'A linked finding',
      content: { text: 'x' },
      tags: [],
    });
    expect(artifact).toEqual([
      expect.objectContaining({ uri: expect.stringMatching(/^quarry:\/\/artifacts\//), name: 'A linked finding' }),
    ]);
    const output = await linksOf('store_research_output', {
      planId,
      mediaType: 'html',
      title: 'Page',
      content: '<p/>',
    });
    expect(output).toEqual([
      expect.objectContaining({ uri: expect.stringMatching(/^quarry:\/\/outputs\//), name: 'Page' }),
    ]);
    // Every link is a resource the caller can read.
    for (const link of [...plan, ...artifact, ...output])
      expect((await client(era).readResource({ uri: link.uri })).contents).toHaveLength(1);
  });

  it('link what a read or list mentions, bounded; a binary deliverable is embedded, not linked again', async () => {
    const { ids } = world;
    const extraction = await linksOf('get_extraction', { id: ids.extractionId });
    expect(extraction).toEqual([
      expect.objectContaining({ uri: `quarry://extractions/${ids.extractionId}`, mimeType: 'application/json' }),
    ]);
    const outputs = await linksOf('list_research_outputs', { planId: ids.planId });
    expect(outputs.map((l) => [l.uri, l.mimeType])).toEqual([
      [`quarry://outputs/${ids.wordId}`, WORD],
      [`quarry://outputs/${ids.markdownId}`, 'text/markdown; charset=utf-8'],
    ]);
    const plans = await linksOf('list_plans', { limit: 100 });
    expect(plans.length).toBeGreaterThanOrEqual(2);
    expect(plans.length).toBeLessThanOrEqual(10);
    const word = await client(era).callTool({ name: 'get_research_output', arguments: { outputId: ids.wordId } });
    expect((word.content as Loose[]).map((c) => c.type)).toEqual(['text', 'resource']);
  });
});
