import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { connectClient, type Era } from './official-client.js';
import { suiteOrg, type TestSystem } from './shared-system.js';
import { expectToolError, sleep, toolsOf, type CallTool, type ToolAnswer } from './tool-answers.js';

// verify_citations and submit_citation_verdicts through the whole system with no model on the
// server, in both protocol eras: a deliverable's cited claims come back with model-free findings,
// passages and a handle; the client's verdicts are checked against what was offered, the report is
// stored as an artifact of the plan (its report lists it, search finds it). Another org's
// deliverable, plan and sources are missing exactly like ones that never existed.

export function citationsSuite(system: () => TestSystem): void {
  describe('verify_citations → submit_citation_verdicts', () => {
    const SOURCE = [
      'We randomly assigned 1711 adults with insomnia disorder to a fully automated digital CBT-I programme or to sleep hygiene education.',
      'At 8 weeks, the digital programme improved insomnia severity index scores by 4.7 points more than sleep hygiene education.',
      'Improvements were maintained at 24 weeks.',
    ].join(' ');
    const clients: Client[] = [];
    const tools = {} as Record<Era, { call: CallTool; ok: CallTool }>;
    let rival: { call: CallTool; ok: CallTool };
    let rivalArtifact: string;

    beforeAll(async () => {
      const gateway = system();
      const acme = await suiteOrg(gateway, 'citations', 'acme');
      for (const era of ['legacy', 'modern'] as const) {
        const client = await connectClient(gateway.url, acme.token, era);
        clients.push(client);
        tools[era] = toolsOf(client);
      }
      const eve = await suiteOrg(gateway, 'citations', 'rival');
      const rivalClient = await connectClient(gateway.url, eve.token, 'modern');
      clients.push(rivalClient);
      rival = toolsOf(rivalClient);
      rivalArtifact = (
        await rival.ok('store_research', {
          artifactType: 'finding',
          title: 'Rival source',
          content: { text: 'Digital CBT-I cured insomnia in everyone.' },
          contentText: 'Digital CBT-I cured insomnia in everyone.',
        })
      ).data.id as string;
    }, 60_000);
    afterAll(async () => {
      for (const client of clients) await client.close();
    });

    async function deliverable(t: { ok: CallTool }) {
      const plan = await t.ok('create_research_plan', {
        name: 'Digital CBT-I',
        researchQuestion: 'Does digital CBT-I work?',
        steps: [{ stepType: 'synthesize', instructions: 'Write it up.' }],
      });
      const planId = plan.data.planId as string;
      const source = await t.ok('store_research', {
        artifactType: 'finding',
        title: 'Digital CBT-I trial',
        content: { text: SOURCE },
        contentText: SOURCE,
        planId,
      });
      const sourceId = source.data.id as string;
      const text = [
        `Digital CBT-I improved insomnia severity by 4.7 points at 8 weeks [1].`,
        `The benefit lasted 52 weeks (quarry://artifacts/${sourceId}).`,
        `It works for everyone (quarry://artifacts/${rivalArtifact}).`,
        '',
        'References',
        `[1] quarry://artifacts/${sourceId}`,
      ].join('\n');
      const output = await t.ok('store_research_output', {
        planId,
        mediaType: 'markdown',
        title: 'Summary',
        content: text,
      });
      return { planId, sourceId, outputId: output.data.outputId as string };
    }

    describe.each(['legacy', 'modern'] as const)('%s client', (era) => {
      it('verifies a deliverable: findings, passages, verdicts checked, the report stored in the plan and searchable', async () => {
        const t = tools[era];
        const { planId, sourceId, outputId } = await deliverable(t);
        const asked = await t.ok('verify_citations', { outputId });
        expect(asked.data.planId).toBe(planId);
        const claims = asked.data.claims as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
        expect(claims.map((c) => [c.claimNo, c.sourceIds, c.settled])).toEqual([
          [1, [sourceId], undefined],
          [2, [sourceId], undefined],
          [3, [], 'source_missing'],
        ]);
        expect(claims[1]!.findings).toEqual([{ kind: 'number_not_in_source', value: '52' }]);
        expect(JSON.stringify(asked.data)).not.toContain('cured insomnia');
        expect(asked.data.instructions).toMatch(/submit_citation_verdicts/);

        const bad = await t.call('submit_citation_verdicts', {
          handle: asked.data.handle,
          verdicts: [{ claimNo: 1, verdict: 'supported', passageId: 'p99' }],
        });
        expectToolError(bad, 'VERDICTS_INVALID', /claim 1: passage not offered/, /claim 2: unanswered/);

        const stored = await t.ok('submit_citation_verdicts', {
          handle: asked.data.handle,
          verdicts: [
            { claimNo: 1, verdict: 'supported', passageId: claims[0]!.passageIds[0] },
            { claimNo: 2, verdict: 'contradicted', passageId: claims[1]!.passageIds[0] },
          ],
        });
        expect(stored.data).toMatchObject({
          supportRatio: 0.333,
          supported: 1,
          contradicted: 1,
          sourceMissing: 1,
          handleStatus: 'accepted',
        });
        const reportId = stored.data.reportId as string;

        const status = await t.ok('get_research_context', { planId });
        expect((status.data.artifacts as Array<{ id: string }>).map((a) => a.id)).toContain(reportId);
        let found: ToolAnswer | undefined;
        const hits = (a: ToolAnswer | undefined) => (a?.data.results ?? []) as Array<{ sourceId: string }>;
        for (let i = 0; i < 100 && !hits(found).some((r) => r.sourceId === reportId); i++) {
          if (i > 0) await sleep(100);
          found = await t.ok('search_sources', { query: 'citation verification contradicted', planId });
        }
        expect(hits(found).map((r) => r.sourceId)).toContain(reportId);
      });

      it("treats another org's deliverable, plan and handle as missing", async () => {
        const { planId, outputId } = await deliverable(tools[era]);
        expectToolError(await rival.call('verify_citations', { outputId }), 'OUTPUT_NOT_FOUND');
        expectToolError(await rival.call('verify_citations', { text: 'x [1].', planId }), 'PLAN_NOT_FOUND');
        const asked = await tools[era].ok('verify_citations', { outputId });
        expectToolError(
          await rival.call('submit_citation_verdicts', { handle: asked.data.handle, verdicts: [] }),
          'VERIFICATION_NOT_FOUND',
        );
      });
    });
  });
}
