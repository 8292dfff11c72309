import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { connectClient } from './official-client.js';
import { suiteOrg, type TestSystem } from './shared-system.js';
import { expectToolError, sleep, toolsOf, type CallTool, type ToolAnswer } from './tool-answers.js';

// store_research_batch through the whole system with the official MCP client: MCP client →
// gateway → artifact-store (rows + their content.created events in one transaction) → outbox →
// indexer → search ← MCP client. Good items are stored and become searchable; a bad item is
// reported in its own result without losing the others; another org never sees them. (Each
// refusal in detail, at the gRPC boundary: services/artifact-store/test/store-batch.test.ts.)

export function artifactBatchSuite(system: () => TestSystem): void {
  describe('store_research_batch', () => {
    let gateway: TestSystem;
    let clientA: Client;
    let clientB: Client;
    let a: { call: CallTool; ok: CallTool };
    let b: { call: CallTool; ok: CallTool };

    beforeAll(async () => {
      gateway = system();
      clientA = await connectClient(gateway.url, (await suiteOrg(gateway, 'batch', 'acme')).token, 'modern');
      clientB = await connectClient(gateway.url, (await suiteOrg(gateway, 'batch', 'rival')).token, 'legacy');
      a = toolsOf(clientA);
      b = toolsOf(clientB);
    });
    afterAll(async () => {
      await clientA?.close();
      await clientB?.close();
    });

    /** Polls search_sources until `until` holds (indexing is asynchronous), at most 10 s. */
    async function searchUntil(tools: { ok: CallTool }, query: string, until: (answer: ToolAnswer) => boolean) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const answer = await tools.ok('search_sources', { query, limit: 10 });
        if (until(answer) || Date.now() > deadline) return answer;
        await sleep(100);
      }
    }
    const idsOf = (answer: ToolAnswer) => (answer.data.results as { id: string }[]).map((r) => r.id).sort();

    describe('store_research_batch end to end', () => {
      it('stores the good items, reports the bad one, and the stored ones become searchable in their org only', async () => {
        const answer = await a.ok('store_research_batch', {
          artifacts: [
            { artifactType: 'finding', title: 'Zeolite one', content: { n: 1 }, contentText: 'zeolitebatchword first' },
            { artifactType: 'finding', title: 'No content', contentText: 'zeolitebatchword lost' },
            {
              artifactType: 'summary',
              title: 'Zeolite two',
              content: { n: 2 },
              contentText: 'zeolitebatchword second',
            },
          ],
        });
        expect(answer.data).toMatchObject({ stored: 2, refused: 1 });
        const results = answer.data.results as { id?: string; errorCode?: string; error?: string }[];
        expect(results.map((r) => r.errorCode ?? 'stored')).toEqual(['stored', 'INVALID_ARGUMENT', 'stored']);
        expect(results[1]!.error).toMatch(/content/);
        const stored = [results[0]!.id!, results[2]!.id!].sort();

        const found = await searchUntil(a, 'zeolitebatchword', (r) => idsOf(r).length >= 2);
        expect(idsOf(found)).toEqual(stored);
        expect((await a.ok('get_artifact', { id: results[2]!.id })).data).toMatchObject({
          title: 'Zeolite two',
          artifactType: 'summary',
        });

        // The other org: nothing found, and the ids answer exactly like missing ones.
        expect(idsOf(await b.ok('search_sources', { query: 'zeolitebatchword', limit: 10 }))).toEqual([]);
        expectToolError(await b.call('get_artifact', { id: stored[0] }), 'ARTIFACT_NOT_FOUND');
      });

      it('refuses a call over 100 items as a whole, before anything is stored', async () => {
        const artifacts = Array.from({ length: 101 }, (_, i) => ({
          artifactType: 'finding',
          title: `n${i}`,
          content: {},
          contentText: 'overflowbatchword',
        }));
        const before = (await a.ok('list_artifacts', {})).data.artifacts as { title: string }[];
        expectToolError(await a.call('store_research_batch', { artifacts }), 'INVALID_ARGUMENT', /artifacts/);
        expect((await a.ok('list_artifacts', {})).data.artifacts).toEqual(before);
      });
    });
  });
}
