import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { connectClient } from './official-client.js';
import { suiteOrg, type TestSystem } from './shared-system.js';
import { expectToolError, sleep, toolsOf, type CallTool, type ToolAnswer } from './tool-answers.js';

// Reading the library back and curating it, through the whole system with the official MCP
// client in both protocol eras: deliverables of every media type come back byte-identical
// (binary ones as embedded resources), long artifacts come in pages no larger than the byte
// budget, what search_sources finds carries a url that fetch reads, tags changed with
// update_artifact_tags are what search filters by, and another org's ids behave exactly like
// missing ones. (Each rpc in detail: services/artifact-store/test/read-back and browse.test.ts.)

export function libraryReadingSuite(system: () => TestSystem): void {
  describe('reading the library back', () => {
    let gateway: TestSystem;
    const clients: Client[] = [];
    let modern: { call: CallTool; ok: CallTool };
    let legacy: { call: CallTool; ok: CallTool };
    let rival: { call: CallTool; ok: CallTool };
    let planId = '';
    const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

    beforeAll(async () => {
      gateway = system();
      const acme = await suiteOrg(gateway, 'library', 'acme');
      clients.push(await connectClient(gateway.url, acme.token, 'modern'));
      clients.push(await connectClient(gateway.url, acme.token, 'legacy'));
      clients.push(await connectClient(gateway.url, (await suiteOrg(gateway, 'library', 'rival')).token, 'modern'));
      [modern, legacy, rival] = clients.map(toolsOf) as [typeof modern, typeof modern, typeof modern];
      planId = (
        await modern.ok('create_research_plan', {
          name: 'Library',
          researchQuestion: 'Does the library give everything back?',
          steps: [{ stepType: 'search', instructions: 'Find' }],
        })
      ).data.planId;
    });

    afterAll(async () => {
      for (const client of clients) await client.close();
    });

    describe('get_research_output', () => {
      const binary = [
        ['word', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
        ['excel', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
        ['powerpoint', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
      ] as const;

      it.each(['modern', 'legacy'] as const)(
        'returns each binary deliverable as an embedded resource, sha256-identical (%s era)',
        async (era) => {
          const client = clients[era === 'modern' ? 0 : 1]!;
          for (const [mediaType, mimeType] of binary) {
            const bytes = Buffer.from(Array.from({ length: 200_000 + mediaType.length }, (_, i) => (i * 31 + 7) % 256));
            const { outputId } = (
              await modern.ok('store_research_output', {
                planId,
                mediaType,
                title: `${mediaType} report`,
                content: bytes.toString('base64'),
                contentSummary: 'What the document says.',
              })
            ).data;
            const result = await client.callTool({ name: 'get_research_output', arguments: { outputId } });
            expect(result.isError).toBeFalsy();
            const content = result.content as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
            expect(content.map((c) => c.type)).toEqual(['text', 'resource']);
            expect(content[1]!.resource).toMatchObject({ uri: `quarry://outputs/${outputId}`, mimeType });
            const returned = Buffer.from(content[1]!.resource.blob as string, 'base64');
            expect(sha256(returned)).toBe(sha256(bytes));
            // The JSON stays, without the bytes a second time.
            expect(result.structuredContent).toMatchObject({ outputId, mediaType, mimeType, sha256: sha256(bytes) });
            expect(result.structuredContent).not.toHaveProperty('document');
            expect(JSON.parse(content[0]!.text as string)).toEqual(result.structuredContent);
          }
        },
      );

      it.each(['conversation', 'markdown', 'html'] as const)(
        'returns a %s deliverable as text, identical',
        async (mediaType) => {
          const text = `<h1>Prices</h1>\n${'Lithium fell — by 20 % ✓. '.repeat(200)}`;
          const { outputId } = (
            await modern.ok('store_research_output', { planId, mediaType, title: 'T', content: text })
          ).data;
          for (const tools of [modern, legacy]) {
            const { data } = await tools.ok('get_research_output', { outputId });
            expect(sha256(data.content as string)).toBe(sha256(text));
            expect(data.sha256).toBe(sha256(text));
          }
        },
      );
    });

    describe('get_artifact', () => {
      it('pages a multi-megabyte artifact: no tool result exceeds the budget, the pages join to the text', async () => {
        const contentText = 'Glaciers retreat, meltwater peaks earlier. '.repeat(24_000).slice(0, 1_000_000);
        const content = { table: Array.from({ length: 25_000 }, (_, i) => `measurement ${i}: 0.${i}`) };
        const { id } = (
          await modern.ok('store_research', { artifactType: 'analysis', title: 'Big', content, contentText })
        ).data;
        const parts: string[] = [];
        let cursor: string | undefined;
        let calls = 0;
        do {
          const result = await clients[0]!.callTool({
            name: 'get_artifact',
            arguments: { id, ...(cursor ? { cursor } : {}) },
          });
          expect(result.isError).toBeFalsy();
          // The whole MCP result as it crossed the wire stays near the default 256 KiB budget.
          expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThan(2 * 270 * 1024);
          const data = result.structuredContent as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
          parts.push(data.contentText as string);
          cursor = data.page.nextCursor as string | undefined;
          calls++;
        } while (cursor);
        expect(calls).toBe(Math.ceil(1_000_000 / (256 * 1024)));
        expect(parts.join('')).toBe(contentText);
        expectToolError(await modern.call('get_artifact', { id, cursor: 'forged.cursor' }), 'INVALID_CURSOR');
      });
    });

    /** Polls search_sources until `until` holds (indexing is asynchronous), at most 10 s. */
    async function searchUntil(args: Record<string, unknown>, until: (answer: ToolAnswer) => boolean) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const answer = await modern.ok('search_sources', args);
        if (until(answer) || Date.now() > deadline) return answer;
        await sleep(100);
      }
    }

    describe('search → fetch, and tags the indexes follow', () => {
      it('search results carry url, planId and tags; fetch reads the url; a retag moves the item between tag filters', async () => {
        const { id } = (
          await modern.ok('store_research', {
            artifactType: 'finding',
            title: 'Permafrost thaw',
            content: { claim: 'thaw' },
            contentText: 'Permafrost thaw releases methane across the Siberian tundra.',
            planId,
            tags: ['arctic'],
          })
        ).data;
        const found = await searchUntil(
          { query: 'permafrost methane', tags: ['arctic'] },
          (r) => r.data.resultCount > 0,
        );
        expect(found.data.results[0]).toMatchObject({
          sourceId: id,
          url: `quarry://artifacts/${id}`,
          planId,
          tags: ['arctic'],
          createdAt: (await modern.ok('get_artifact', { id })).data.createdAt,
        });
        const fetched = await legacy.ok('fetch', { id: found.data.results[0].url });
        expect(fetched.data).toMatchObject({
          id,
          title: 'Permafrost thaw',
          text: 'Permafrost thaw releases methane across the Siberian tundra.',
          url: `quarry://artifacts/${id}`,
        });
        expect(fetched.data.metadata).toMatchObject({
          source_table: 'research_artifact',
          plan_id: planId,
          tags: 'arctic',
        });

        expect((await modern.ok('update_artifact_tags', { id, add: ['methane'], remove: ['arctic'] })).data).toEqual({
          id,
          tags: ['methane'],
          changed: true,
        });
        const retagged = await searchUntil(
          { query: 'permafrost methane', tags: ['methane'] },
          (r) => r.data.resultCount > 0,
        );
        expect(retagged.data.results[0]).toMatchObject({ sourceId: id, tags: ['methane'] });
        const old = await searchUntil(
          { query: 'permafrost methane', tags: ['arctic'] },
          (r) => r.data.resultCount === 0,
        );
        expect(old.data.resultCount).toBe(0);

        expect((await modern.ok('list_tags', {})).data.tags).toEqual(
          expect.arrayContaining([{ tag: 'methane', count: 1 }]),
        );
        const listed = (await legacy.ok('list_artifacts', { tags: ['methane'] })).data.artifacts;
        expect(listed.map((x: { id: string }) => x.id)).toEqual([id]);
      });
    });

    describe('tenancy', () => {
      it("another org's ids behave exactly like missing ones, for every read and curate tool, import_url's plan and the entity graph", async () => {
        const { id } = (
          await modern.ok('store_research', {
            artifactType: 'finding',
            title: 'Ours',
            content: { a: 'b' },
            tags: ['ours'],
          })
        ).data;
        const { outputId } = (
          await modern.ok('store_research_output', { planId, mediaType: 'markdown', title: 'Ours', content: '# ours' })
        ).data;
        const entityId = (
          await modern.ok('upsert_entities', {
            entities: [{ name: 'Ours', type: 'thing' }],
            relations: [{ from: 'Ours', to: 'Ours', type: 'is', evidence: [{ artifactId: id }] }],
          })
        ).data.entities[0].id;
        const missing = randomUUID();
        // upsert_entities is probed with another org's artifact as evidence, get_entity_graph with its entity.
        const evidenced = (x: string) => ({
          entities: [{ name: 'Theirs', type: 'thing' }],
          relations: [{ from: 'Theirs', to: 'Theirs', type: 'is', evidence: [{ artifactId: x }] }],
        });
        const probes: Array<[string, (x: string) => Record<string, unknown>, string]> = [
          ['get_artifact', (x) => ({ id: x }), 'ARTIFACT_NOT_FOUND'],
          ['upsert_entities', evidenced, 'ARTIFACT_NOT_FOUND'],
          ['get_entity_graph', (x) => ({ entityId: x }), 'ENTITY_NOT_FOUND'],
          ['update_artifact_tags', (x) => ({ id: x, add: ['theirs'] }), 'ARTIFACT_NOT_FOUND'],
          ['get_research_output', (x) => ({ outputId: x }), 'OUTPUT_NOT_FOUND'],
          ['get_extraction', (x) => ({ id: x }), 'EXTRACTION_NOT_FOUND'],
          ['fetch', (x) => ({ id: x }), 'ITEM_NOT_FOUND'],
          // The plan is checked before anything is fetched: this URL is never requested.
          ['import_url', (x) => ({ url: 'http://127.0.0.1:9/never-fetched', planId: x }), 'PLAN_NOT_FOUND'],
        ];
        const targets: Record<string, string> = {
          get_research_output: outputId,
          import_url: planId,
          get_entity_graph: entityId,
        };
        for (const [tool, args, code] of probes) {
          const target = targets[tool] ?? id;
          const theirs = await rival.call(tool, args(target));
          const absent = await rival.call(tool, args(missing));
          expectToolError(theirs, code);
          expect({
            ...theirs.data.error,
            message: theirs.data.error.message.replace(target, 'ID'),
            requestId: 0,
          }).toEqual({
            ...absent.data.error,
            message: absent.data.error.message.replace(missing, 'ID'),
            requestId: 0,
          });
        }
        expect((await rival.ok('list_artifacts', {})).data.artifacts).toEqual([]);
        expect((await rival.ok('list_tags', {})).data.tags).toEqual([]);
        expect((await rival.ok('get_entity_graph', { name: 'ours' })).data.startIds).toEqual([]);
        // Both eras read the graph; its resource is readable by its org only, and another org's
        // entity is the same not-found as a missing one.
        expect((await legacy.ok('get_entity_graph', { entityId })).data.startIds).toEqual([entityId]);
        const own = await clients[0]!.readResource({ uri: `quarry://entities/${entityId}` });
        expect(JSON.parse(String((own.contents[0] as { text: string }).text))).toMatchObject({ startIds: [entityId] });
        const refusal = (uri: string) =>
          clients[2]!.readResource({ uri }).then(
            () => 'read',
            (e: Error) => e.message.replace(uri, 'URI'),
          );
        const foreignRead = await refusal(`quarry://entities/${entityId}`);
        expect(foreignRead).toMatch(/not found/i);
        expect(foreignRead).toBe(await refusal(`quarry://entities/${missing}`));
        expect((await modern.ok('get_artifact', { id })).data.tags).toEqual(['ours']);
      });
    });
  });
}
