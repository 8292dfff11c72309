import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from '@jest/globals';
import type { ClientFixture } from './client-fixture.js';
import type { ClientSession, ToolResult } from './client-session.js';

// One write and one read a session of each client does: a research plan created and read back,
// or, for ChatGPT, research stored and then found and opened through the two tools its deep
// research and company knowledge modes call, checked against OpenAI's contract for them.

/** A tool as tools/list describes it. */
export interface ListedTool {
  name: string;
  inputSchema: { properties?: Record<string, { type?: string }>; required?: string[] };
}

/**
 * tools/list holds what a session of this kind calls; for ChatGPT, also what it checks before it
 * lets deep research use a server: `search` taking a string `query`, `fetch` a string `id`.
 */
export function checkTools(work: ClientFixture['work'], tools: readonly ListedTool[]) {
  const names = tools.map((t) => t.name);
  if (work === 'plan') {
    expect(names).toEqual(expect.arrayContaining(['create_research_plan', 'get_plan_status']));
    return;
  }
  expect(names).toEqual(expect.arrayContaining(['search', 'fetch', 'store_research']));
  for (const [tool, argument] of [
    ['search', 'query'],
    ['fetch', 'id'],
  ] as const) {
    const { inputSchema } = tools.find((t) => t.name === tool)!;
    expect(inputSchema.properties?.[argument]?.type).toBe('string');
    expect(inputSchema.required).toContain(argument);
  }
}

const ok = (name: string, result: ToolResult) => {
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.structuredContent ?? result.content)}`);
  return result;
};

/** create_research_plan, then get_plan_status reads the same plan back. */
async function planWork(session: ClientSession, client: ClientFixture) {
  const name = `${client.name} matrix plan`;
  const created = ok(
    'create_research_plan',
    await session.callTool('create_research_plan', {
      name,
      researchQuestion: `Does Quarry work from ${client.name}?`,
      steps: [
        { stepType: 'search', instructions: 'Find what the client sends' },
        { stepType: 'synthesize', instructions: 'Write up what works' },
      ],
    }),
  );
  const planId = created.structuredContent?.planId as string;
  expect(planId).toBeTruthy();
  const status = ok('get_plan_status', await session.callTool('get_plan_status', { planId }));
  expect(status.structuredContent).toMatchObject({ planId, name, totalSteps: 2 });
}

/** A tool result in ChatGPT's research shape: exactly one text item holding the JSON. */
function researchJson(name: string, result: ToolResult) {
  ok(name, result);
  expect(result.content).toHaveLength(1);
  expect(result.content[0]!.type).toBe('text');
  return JSON.parse(result.content[0]!.text!) as Record<string, unknown>;
}

/** store_research (write); search(query) finds it and fetch(id) opens it (reads), as ChatGPT reads them. */
async function chatgptWork(session: ClientSession, client: ClientFixture, publicBase: string) {
  const words = `${client.name.toLowerCase()} lagoon sediment varves`;
  const stored = ok(
    'store_research',
    await session.callTool('store_research', {
      artifactType: 'finding',
      title: `${client.name} matrix finding`,
      content: { claim: 'varves count years' },
      contentText: `Annual ${words} record one year per couplet of light and dark layers.`,
    }),
  );
  const storedId = stored.structuredContent?.id as string;
  // The indexer makes what was stored searchable moments later.
  const deadline = Date.now() + 10_000;
  let results: Array<{ id: string; title: string; url: string }> = [];
  do {
    results = researchJson('search', await session.callTool('search', { query: words })).results as typeof results;
    if (results.some((r) => r.id === storedId)) break;
    await sleep(150);
  } while (Date.now() < deadline);
  const hit = results.find((r) => r.id === storedId);
  expect(hit).toBeDefined();
  expect(Object.keys(hit!).sort()).toEqual(['id', 'title', 'url']);
  // A citation opens only from a non-empty url on Quarry's public origin (never quarry://).
  expect(hit!.url.startsWith(`${publicBase}/`)).toBe(true);
  const document = researchJson('fetch', await session.callTool('fetch', { id: hit!.id }));
  expect(Object.keys(document).sort()).toEqual(['id', 'metadata', 'text', 'title', 'url']);
  expect(document).toMatchObject({ id: storedId, url: hit!.url });
  expect(document.text).toContain(words);
}

/** Does this client's kind of work: one write, then reads of what it wrote. */
export async function doWork(session: ClientSession, client: ClientFixture, publicBase: string) {
  if (client.work === 'plan') await planWork(session, client);
  else await chatgptWork(session, client, publicBase);
}
