import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { startTestGateway } from './harness.js';
import { connectClient } from './official-client.js';
import { expectToolError, sleep, toolsOf, type CallTool, type ToolAnswer } from './tool-answers.js';

// search_sources through the whole content pipeline, as `quarry start` runs it: MCP client →
// gateway → artifact-store (row + content.created in one transaction) → outbox → indexer →
// embedded LanceDB BM25 + vector indexes ← search service ← gateway ← MCP client. Everything a
// client stores with text becomes findable within a bounded wait, the filters narrow inside the
// engines, and another org's content never appears — not even for its exact words (canary).
// (How the search service ranks, reads the query type, limits and filters an index it is given:
// services/search/test/service.test.ts.)

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let clientA: Client;
let clientB: Client;
let a: { call: CallTool; ok: CallTool };
let b: { call: CallTool; ok: CallTool };
const stored: Record<string, string> = {};
let planA = '';
let stepA = '';
let planA2 = '';

/** Polls search_sources until `until` holds (the pipeline is asynchronous), at most 10 s. */
async function searchUntil(
  tools: { ok: CallTool },
  args: Record<string, unknown>,
  until: (answer: ToolAnswer) => boolean,
): Promise<ToolAnswer> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const answer = await tools.ok('search_sources', args);
    if (until(answer) || Date.now() > deadline) return answer;
    await sleep(100);
  }
}

const ids = (answer: ToolAnswer) => (answer.data.results as Array<{ sourceId: string }>).map((r) => r.sourceId).sort();

async function createPlan(tools: { ok: CallTool }, name: string) {
  const { planId } = (
    await tools.ok('create_research_plan', {
      name,
      researchQuestion: `What about ${name}?`,
      steps: [{ stepType: 'search', instructions: 'Find' }],
    })
  ).data;
  const { steps } = (await tools.ok('get_research_context', { planId })).data;
  return { planId: planId as string, stepId: steps[0].stepId as string };
}

beforeAll(async () => {
  gateway = await startTestGateway();
  clientA = await connectClient(gateway.url, gateway.token, 'modern');
  await gateway.admin.createOrg({ slug: 'rival', name: 'Rival Labs' });
  await gateway.admin.addUser({ email: 'eve@rival.test', orgSlug: 'rival', name: 'Eve' });
  const { token } = await gateway.admin.createToken({ orgSlug: 'rival', email: 'eve@rival.test' });
  clientB = await connectClient(gateway.url, token, 'legacy');
  a = toolsOf(clientA);
  b = toolsOf(clientB);
  ({ planId: planA, stepId: stepA } = await createPlan(a, 'Glaciers'));
  ({ planId: planA2 } = await createPlan(a, 'Coral reefs'));
  const planB = (await createPlan(b, 'Rival glaciers')).planId;

  stored.finding = (
    await a.ok('store_research', {
      artifactType: 'finding',
      title: 'Glacier retreat in the Alps',
      content: { claim: 'retreat' },
      contentText:
        'Alpine glaciers lost roughly half of their volume since 1900; meltwater runoff peaks are shifting earlier.',
      planId: planA,
      stepId: stepA,
      tags: ['climate', 'alps'],
    })
  ).data.id;
  stored.summary = (
    await a.ok('store_research', {
      artifactType: 'summary',
      title: 'Coral bleaching summary',
      content: { text: 'Marine heatwaves bleach corals; recovery takes a decade. Glacier melt is unrelated.' },
      planId: planA2,
      tags: ['climate', 'oceans'],
    })
  ).data.id;
  stored.output = (
    await a.ok('store_research_output', {
      planId: planA,
      mediaType: 'markdown',
      title: 'Glacier report',
      content: '# Glacier report\n\nMeltwater from Alpine glaciers feeds the Rhine and the Rhone.',
    })
  ).data.outputId;
  stored.binary = (
    await a.ok('store_research_output', {
      planId: planA,
      mediaType: 'word',
      title: 'Glacier deck notes',
      content: Buffer.from('PK\u0003\u0004 binary bytes mentioning zeppelin').toString('base64'),
      contentSummary: 'Slides about moraine formation.',
    })
  ).data.outputId;
  stored.report = (
    await a.ok('submit_subagent_report', {
      planId: planA,
      stepId: stepA,
      description: 'Survey glacier monitoring stations',
      report: { stations: ['Aletsch', 'Rhone'], note: 'Monitoring stations measure firn density every spring.' },
    })
  ).data.reportId;
  // The canary: the rival stores text sharing every query word used below, plus its own marker.
  stored.rival = (
    await b.ok('store_research', {
      artifactType: 'finding',
      title: 'Glacier retreat in the Alps (rival)',
      content: {},
      contentText: 'Alpine glaciers meltwater runoff moraine firn coral bleaching canaryword.',
      planId: planB,
      tags: ['climate', 'alps'],
    })
  ).data.id;
  // Wait until every one of them is indexed: the rival's and acme's last writes are visible.
  await searchUntil(b, { query: 'canaryword' }, (r) => r.data.keywordResults === 1);
  await searchUntil(a, { query: 'firn density' }, (r) => r.data.keywordResults >= 1);
}, 60_000);

afterAll(async () => {
  await clientA?.close();
  await clientB?.close();
  await gateway?.close();
});

describe('search_sources finds what was stored, through MCP', () => {
  it('finds an artifact by its words, with the whole result shape', async () => {
    const answer = await searchUntil(a, { query: 'glacier volume' }, (r) => r.data.resultCount > 0);
    expect(answer.data).toMatchObject({ query: 'glacier volume', queryType: 'keyword' });
    expect(answer.data.keywordResults).toBeGreaterThanOrEqual(1);
    const first = answer.data.results[0];
    expect(first).toEqual({
      id: stored.finding,
      sourceTable: 'research_artifact',
      sourceId: stored.finding,
      title: 'Glacier retreat in the Alps',
      rrfScore: expect.any(Number),
      inKeyword: true,
      inSemantic: true,
      keywordRank: 1,
      semanticRank: expect.any(Number),
      textSnippet: expect.stringMatching(/volume/i),
      url: `quarry://artifacts/${stored.finding}`,
      planId: planA,
      tags: ['alps', 'climate'],
      createdAt: (await a.ok('get_artifact', { id: stored.finding })).data.createdAt,
      // Research text with nothing aimed at a model (ADR 0062).
      instructionFlags: [],
    });
    expect(answer.data.resultCount).toBe(answer.data.results.length);
  });

  it('finds an output, a subagent report, and a binary output by its summary only', async () => {
    const top = async (query: string) => (await a.ok('search_sources', { query })).data.results[0];
    expect(await top('Rhine Rhone meltwater')).toMatchObject({
      sourceId: stored.output,
      sourceTable: 'research_output',
      inKeyword: true,
    });
    expect(await top('firn density')).toMatchObject({
      sourceId: stored.report,
      sourceTable: 'research_artifact',
      inKeyword: true,
    });
    expect(await top('moraine formation')).toMatchObject({
      sourceId: stored.binary,
      sourceTable: 'research_output',
      inKeyword: true,
    });
    // The document's bytes are not indexed: no keyword match on a word only they contain. (The
    // vector leg always returns nearest neighbours, so semantic-only results may still appear.)
    const bytesOnly = await a.ok('search_sources', { query: 'zeppelin' });
    expect(bytesOnly.data.keywordResults).toBe(0);
    expect(bytesOnly.data.results.every((r: { inKeyword: boolean }) => !r.inKeyword)).toBe(true);
  });

  it('narrows by sourceTable, artifactType, planId and tags (all given tags), inside the engines', async () => {
    const q = { query: 'glacier glaciers meltwater coral firn moraine', limit: 50 };
    expect(ids(await a.ok('search_sources', { ...q, sourceTable: 'research_output' }))).toEqual(
      [stored.output, stored.binary].sort(),
    );
    expect(ids(await a.ok('search_sources', { ...q, artifactType: 'summary' }))).toEqual([stored.summary]);
    expect(ids(await a.ok('search_sources', { ...q, planId: planA2 }))).toEqual([stored.summary]);
    expect(ids(await a.ok('search_sources', { ...q, tags: ['climate', 'alps'] }))).toEqual([stored.finding]);
    expect(ids(await a.ok('search_sources', { ...q, tags: ['climate'] }))).toEqual(
      [stored.finding, stored.summary].sort(),
    );
    expect(
      ids(
        await a.ok('search_sources', {
          ...q,
          planId: planA,
          sourceTable: 'research_artifact',
          artifactType: 'analysis',
        }),
      ),
    ).toEqual([stored.report]);
    expect((await a.ok('search_sources', { ...q, tags: ['nonexistent'] })).data.resultCount).toBe(0);
  });

  it('narrows by a createdSince / createdUntil range (inclusive, any offset), with the other filters', async () => {
    const q = { query: 'glacier glaciers meltwater coral firn moraine', limit: 50 };
    const all = (await a.ok('search_sources', q)).data.results as Array<{ sourceId: string; createdAt: string }>;
    expect(all.length).toBe(5);
    const times = all.map((r) => r.createdAt).sort();
    const pivot = times[2]!;
    const within = (keep: (t: string) => boolean) =>
      all
        .filter((r) => keep(r.createdAt))
        .map((r) => r.sourceId)
        .sort();
    // The same instant written with a +02:00 offset.
    const shifted = new Date(Date.parse(pivot) + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
    expect(ids(await a.ok('search_sources', { ...q, createdSince: shifted }))).toEqual(within((t) => t >= pivot));
    expect(ids(await a.ok('search_sources', { ...q, createdUntil: pivot }))).toEqual(within((t) => t <= pivot));
    expect(ids(await a.ok('search_sources', { ...q, createdSince: pivot, createdUntil: pivot }))).toEqual(
      within((t) => t === pivot),
    );
    expect(ids(await a.ok('search_sources', { ...q, planId: planA2, createdSince: times[0] }))).toEqual([
      stored.summary,
    ]);
    const later = new Date(Date.parse(times[4]!) + 1).toISOString();
    expect((await a.ok('search_sources', { ...q, createdSince: later })).data.resultCount).toBe(0);
  });

  it('refuses bad arguments with a readable tool error (the gateway checks the schema, the service the range)', async () => {
    expectToolError(await a.call('search_sources', { query: 'glacier', limit: 0 }), 'INVALID_ARGUMENT', /limit/);
    expectToolError(await a.call('search_sources', { query: 'glacier', limit: 51 }), 'INVALID_ARGUMENT', /limit/);
    expectToolError(await a.call('search_sources', { query: '' }), 'INVALID_ARGUMENT', /query/);
    expectToolError(await a.call('search_sources', {}), 'INVALID_ARGUMENT', /query/);
    expectToolError(
      await a.call('search_sources', { query: 'x', sourceTable: 'research_notes' }),
      'INVALID_ARGUMENT',
      /sourceTable/,
    );
    expectToolError(await a.call('search_sources', { query: 'x', planId: 'not-a-uuid' }), 'INVALID_ARGUMENT', /planId/);
    expectToolError(
      await a.call('search_sources', { query: 'x', createdSince: 'yesterday' }),
      'INVALID_ARGUMENT',
      /createdSince/,
    );
    expectToolError(
      await a.call('search_sources', {
        query: 'x',
        createdSince: '2026-02-01T00:00:00Z',
        createdUntil: '2026-01-31T23:59:59Z',
      }),
      'INVALID_ARGUMENT',
      /createdUntil.*createdSince/,
    );
  });
});

describe('tenant isolation (canary)', () => {
  it("never returns another org's content, even for its exact words", async () => {
    const exact = await a.ok('search_sources', { query: 'canaryword', limit: 50 });
    expect(exact.data.keywordResults).toBe(0);
    expect(ids(exact)).not.toContain(stored.rival);
    const broad = await a.ok('search_sources', {
      query: 'Alpine glaciers meltwater runoff moraine firn coral bleaching canaryword',
      limit: 50,
    });
    expect(ids(broad)).not.toContain(stored.rival);
    expect(ids(broad).length).toBeGreaterThan(0);
    // …and the other way round: the rival sees only its own.
    expect(
      ids(await b.ok('search_sources', { query: 'glacier glaciers meltwater coral firn moraine', limit: 50 })),
    ).toEqual([stored.rival]);
  });

  it("treats another org's plan id exactly like a missing one", async () => {
    const foreign = await b.ok('search_sources', { query: 'glacier', planId: planA });
    const missing = await b.ok('search_sources', { query: 'glacier', planId: '00000000-0000-4000-8000-000000000000' });
    expect(foreign.data).toEqual(missing.data);
    expect(foreign.data).toMatchObject({ resultCount: 0, keywordResults: 0, semanticResults: 0, results: [] });
  });
});

describe('the indexer in quarry start', () => {
  it('reports its lag on the gateway /metrics', async () => {
    const body = await (await fetch(`${gateway.base}/metrics`)).text();
    expect(body).toMatch(/^quarry_indexer_lag_seconds\{service="indexer"\} \d/m);
    expect(body).toMatch(/^quarry_indexer_events_total\{.*outcome="indexed".*\} [1-9]/m);
  });
});
