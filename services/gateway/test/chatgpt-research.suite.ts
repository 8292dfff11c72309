import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { createOAuthAdmin, type IdentityDatabase } from '@quarry/gateway';
import type { Kysely } from 'kysely';
import { connectClient, type Era } from './official-client.js';
import { suiteOrg, type TestSystem } from './shared-system.js';
import { expectToolError, sleep, toolsOf } from './tool-answers.js';

// ChatGPT's research contract (deep research, company knowledge) through the whole system with
// the official MCP client in both protocol eras, validated as OpenAI's connector check reads a
// server: tools named exactly search and fetch, each taking one required string (query, id), each
// answering exactly one text content item whose JSON is {results: [{id, title, url}]} or {id,
// title, text, url, metadata} (and the same object as structuredContent), every url an https
// permalink (the system runs with an https QUARRY_PUBLIC_URL) that opens the item for a person of
// its org and for nobody else. (Ranking: services/search; shaping: test/permalinks.test.ts.)

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const PASSWORD = 'correct horse battery staple';

/** What a connector check asserts of one call's result: one text item, its JSON the structured content. */
function oneTextItem(result: Loose): Loose {
  expect(result.isError).toBeFalsy();
  expect(result.content).toHaveLength(1);
  expect(result.content[0]).toEqual({ type: 'text', text: expect.any(String) });
  const json = JSON.parse(result.content[0].text) as Loose;
  expect(result.structuredContent).toEqual(json);
  return json;
}

function expectHttpsUrl(url: unknown, publicUrl: string): URL {
  expect(typeof url).toBe('string');
  const parsed = new URL(url as string);
  expect(parsed.protocol).toBe('https:');
  expect((url as string).startsWith(`${publicUrl}/app/`)).toBe(true);
  return parsed;
}

export function chatgptResearchSuite(system: () => TestSystem, publicUrl: string): void {
  describe("ChatGPT's research contract: search and fetch", () => {
    let gateway: TestSystem;
    const clients: Client[] = [];
    const stored = { artifact: '', output: '', long: '', rival: '' };
    const word = `quokka${randomUUID().slice(0, 8)}`;

    beforeAll(async () => {
      gateway = system();
      const acme = await suiteOrg(gateway, 'chatgpt', 'acme');
      const rival = await suiteOrg(gateway, 'chatgpt', 'rival');
      const oauth = createOAuthAdmin(gateway.database.admin as Kysely<IdentityDatabase>);
      for (const email of [acme.email, rival.email]) await oauth.setPassword(email, PASSWORD);
      for (const [token, era] of [
        [acme.token, 'legacy'],
        [acme.token, 'modern'],
        [rival.token, 'modern'],
      ] as const)
        clients.push(await connectClient(gateway.url, token, era));
      const [a, , b] = clients.map(toolsOf);
      const planId = (
        await a!.ok('create_research_plan', {
          name: 'Glaciers',
          researchQuestion: 'How fast do glaciers retreat?',
          steps: [{ stepType: 'search', instructions: 'Find' }],
        })
      ).data.planId;
      const store = async (tools: typeof a, title: string, contentText: string, plan?: string) =>
        (
          await tools!.ok('store_research', {
            artifactType: 'finding',
            title,
            content: {},
            contentText,
            ...(plan ? { planId: plan } : {}),
          })
        ).data.id as string;
      stored.artifact = await store(a, 'Glacier retreat', `Alpine glaciers ${word} lost half their volume.`, planId);
      // Long enough for several chunks that all match: one result all the same.
      stored.long = await store(
        a,
        'Glacier survey',
        Array.from({ length: 300 }, (_, i) => `Survey line ${i} mentions ${word} and moraine.`).join(' '),
        planId,
      );
      stored.output = (
        await a!.ok('store_research_output', {
          planId,
          mediaType: 'markdown',
          title: 'Glacier brief',
          content: `# Glacier brief\n\nMeltwater ${word} feeds the Rhine.`,
        })
      ).data.outputId;
      stored.rival = await store(b, 'Rival glaciers', `Rival text about glaciers ${word}.`);
      // Wait until everything is indexed.
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline) {
        const found = (await a!.ok('search', { query: word })).data.results as Loose[];
        if (found.length === 3) break;
        await sleep(100);
      }
    }, 60_000);

    afterAll(async () => {
      for (const client of clients) await client.close();
    });

    it.each<[Era, number]>([
      ['legacy', 0],
      ['modern', 1],
    ])('passes the connector check of the tools and their answers (%s era)', async (_era, index) => {
      const client = clients[index]!;
      const listed = (await client.listTools()).tools;
      const search = listed.find((t) => t.name === 'search');
      const fetchTool = listed.find((t) => t.name === 'fetch');
      expect(search?.inputSchema).toMatchObject({ type: 'object', properties: { query: { type: 'string' } } });
      expect(search?.inputSchema.required).toEqual(['query']);
      expect(fetchTool?.inputSchema).toMatchObject({ type: 'object', properties: { id: { type: 'string' } } });
      expect(fetchTool?.inputSchema.required).toEqual(['id']);
      for (const tool of [search, fetchTool]) expect(tool?.annotations?.readOnlyHint).toBe(true);

      const found = oneTextItem(await client.callTool({ name: 'search', arguments: { query: word } }));
      expect(Object.keys(found)).toEqual(['results']);
      const results = found.results as Loose[];
      expect(results.map((r) => r.id).sort()).toEqual([stored.artifact, stored.long, stored.output].sort());
      for (const result of results) {
        expect(Object.keys(result).sort()).toEqual(['id', 'title', 'url']);
        expect(result.id).toEqual(expect.any(String));
        expect(result.title).toEqual(expect.any(String));
        expectHttpsUrl(result.url, publicUrl);
      }

      for (const result of results) {
        const item = oneTextItem(await client.callTool({ name: 'fetch', arguments: { id: result.id } }));
        expect(Object.keys(item)).toEqual(['id', 'title', 'text', 'url', 'metadata']);
        expect(item).toMatchObject({ id: result.id, title: result.title, url: result.url });
        expect(item.text).toContain(word);
        expect(Object.values(item.metadata).every((v) => typeof v === 'string')).toBe(true);
      }
      const brief = results.find((r) => r.id === stored.output)!;
      expect(new URL(brief.url).pathname).toBe(`/app/outputs/${stored.output}`);
    });

    it("gives search_sources' urls as permalinks, which fetch reads as any id", async () => {
      const { ok } = toolsOf(clients[1]!);
      const sources = (await ok('search_sources', { query: word })).data.results as Loose[];
      const artifact = sources.find((r) => r.sourceId === stored.artifact)!;
      expect(artifact.url).toBe(`${publicUrl}/app/artifacts/${stored.artifact}`);
      expect((await ok('fetch', { id: artifact.url })).data).toEqual((await ok('fetch', { id: stored.artifact })).data);
      expect((await ok('get_artifact', { id: stored.artifact })).data.url).toBe(artifact.url);
    });

    it("never finds, fetches or shows another org's items: they are missing ones", async () => {
      const rival = toolsOf(clients[2]!);
      expect(((await rival.ok('search', { query: word })).data.results as Loose[]).map((r) => r.id)).toEqual([
        stored.rival,
      ]);
      const missing = randomUUID();
      const absent = await rival.call('fetch', { id: missing });
      expectToolError(absent, 'ITEM_NOT_FOUND');
      for (const probe of [
        stored.artifact,
        `quarry://artifacts/${stored.artifact}`,
        `${publicUrl}/app/artifacts/${stored.artifact}`,
      ]) {
        const theirs = await rival.call('fetch', { id: probe });
        expectToolError(theirs, 'ITEM_NOT_FOUND');
        expect({ ...theirs.data.error, message: theirs.data.error.message.replace(probe, 'ID'), requestId: 0 }).toEqual(
          {
            ...absent.data.error,
            message: absent.data.error.message.replace(missing, 'ID'),
            requestId: 0,
          },
        );
      }
    });

    it('opens each permalink for a signed-in person of its org, and for nobody else', async () => {
      /** The app's sign-in, as a browser posts it (the public URL's https host is this gateway). */
      async function signIn(email: string) {
        const form = await fetch(`${gateway.base}/app/sign-in`);
        const nonce = form.headers.getSetCookie()[0]!.split(';')[0]!;
        const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
        const answer = await fetch(`${gateway.base}/app/sign-in`, {
          method: 'POST',
          headers: { cookie: nonce, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ csrf, email, password: PASSWORD }).toString(),
          redirect: 'manual',
        });
        const session = answer.headers.getSetCookie().find((c) => c.startsWith('quarry_session='));
        expect(session).toMatch(/; Secure$/);
        return session!.split(';')[0]!;
      }
      const open = async (url: string, cookie?: string) => {
        const answer = await fetch(`${gateway.base}${new URL(url).pathname}`, {
          headers: cookie ? { cookie } : {},
          redirect: 'manual',
        });
        return { status: answer.status, html: await answer.text(), location: answer.headers.get('location') };
      };
      const permalink = `${publicUrl}/app/outputs/${stored.output}`;
      expect(await open(permalink)).toMatchObject({
        status: 303,
        location: expect.stringMatching(/^\/app\/sign-in/),
      });
      const ada = await signIn(`ada@acme-chatgpt.test`);
      const shown = await open(permalink, ada);
      expect(shown.status).toBe(200);
      expect(shown.html).toContain('<h1>Glacier brief</h1>');
      expect(shown.html).toContain(`Meltwater ${word} feeds the Rhine.`);
      const eve = await signIn(`eve@rival-chatgpt.test`);
      const refused = await open(permalink, eve);
      expect(refused.status).toBe(404);
      expect(refused).toEqual({ ...(await open(`${publicUrl}/app/outputs/${randomUUID()}`, eve)) });
      expect((await open(`${publicUrl}/app/artifacts/${stored.rival}`, eve)).status).toBe(200);
    });
  });
}
