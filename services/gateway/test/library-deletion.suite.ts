import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { appUrlFrom, sql } from '@quarry/db';
import { rewindConsumer } from '@quarry/events';
import { startIndexer, type Indexer } from '@quarry/indexer';
import { createLogger } from '@quarry/telemetry';
import { connectClient } from './official-client.js';
import { suiteOrg, type TestSystem } from './shared-system.js';
import { sleep, toolsOf, type CallTool, type ToolAnswer } from './tool-answers.js';

// delete_plan, delete_artifact and delete_research_output through the whole system, as
// `quarry start` runs it: MCP client → gateway → plan engine → artifact store (rows purged,
// content.deleted in the outbox) → embedded event log → indexer (chunks removed from LanceDB's
// BM25 and vector tables, tombstones) ← search_sources. Afterwards nothing of the deleted plan is
// found by search or any read or list tool — also after the indexer is restarted and replays the
// whole log — and a deleted id, a random id and another org's id answer the same error.

export function deletionToolsSuite(system: () => TestSystem): void {
  describe('deletion', () => {
    let gateway: TestSystem;
    let clientA: Client;
    let clientB: Client;
    let a: { call: CallTool; ok: CallTool };
    let b: { call: CallTool; ok: CallTool };
    let replayed: Indexer | undefined;
    const WORD = 'quetzalcoatlite';

    /** Polls search_sources until `until` holds (the pipeline is asynchronous), at most 15 s. */
    async function searchUntil(args: Record<string, unknown>, until: (answer: ToolAnswer) => boolean) {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const answer = await a.ok('search_sources', args);
        if (until(answer) || Date.now() > deadline) return answer;
        await sleep(100);
      }
    }
    const foundIds = (answer: ToolAnswer) => (answer.data.results as { sourceId: string }[]).map((r) => r.sourceId);

    /** A tool error as the model reads it, with every id in the message replaced, to compare a deleted id with a random one. */
    async function errorOf(tools: { call: CallTool }, name: string, args: Record<string, unknown>) {
      const answer = await tools.call(name, args);
      expect({ name, isError: answer.isError }).toEqual({ name, isError: true });
      const { code, message } = answer.data.error as { code: string; message: string };
      return { code, message: message.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, '<id>') };
    }

    async function planWithContent(name: string) {
      const { planId } = (
        await a.ok('create_research_plan', {
          name,
          researchQuestion: `What is ${WORD}?`,
          steps: [{ stepType: 'search', instructions: 'Find it' }],
        })
      ).data;
      const stepId = (await a.ok('get_next_step', { planId })).data.step.stepId as string;
      const artifact = (
        await a.ok('store_research', {
          artifactType: 'finding',
          title: `${name} finding`,
          content: { claim: 'rare' },
          contentText: `The mineral ${WORD} is found in one mine in Mexico.`,
          planId,
          stepId,
        })
      ).data.id as string;
      const output = (
        await a.ok('store_research_output', {
          planId,
          mediaType: 'markdown',
          title: `${name} report`,
          content: `# Report\n\nOn ${WORD} and its crystal habit.`,
        })
      ).data.outputId as string;
      const report = (
        await a.ok('submit_subagent_report', {
          planId,
          stepId,
          description: `Survey ${WORD} samples`,
          report: { note: `Three ${WORD} samples were measured.` },
        })
      ).data.reportId as string;
      return { planId, stepId, sources: [artifact, output, report] };
    }

    let doomed: Awaited<ReturnType<typeof planWithContent>>;
    let kept: Awaited<ReturnType<typeof planWithContent>>;

    beforeAll(async () => {
      gateway = system();
      clientA = await connectClient(gateway.url, (await suiteOrg(gateway, 'deletion', 'acme')).token, 'modern');
      clientB = await connectClient(gateway.url, (await suiteOrg(gateway, 'deletion', 'rival')).token, 'legacy');
      a = toolsOf(clientA);
      b = toolsOf(clientB);
      doomed = await planWithContent('Doomed');
      kept = await planWithContent('Kept');
      const all = [...doomed.sources, ...kept.sources];
      const indexed = await searchUntil({ query: WORD, limit: 50 }, (r) => all.every((id) => foundIds(r).includes(id)));
      expect(foundIds(indexed)).toEqual(expect.arrayContaining(all));
    }, 60_000);

    afterAll(async () => {
      await clientA?.close();
      await clientB?.close();
      await replayed?.close();
    });

    describe('the deletion tools, through MCP', () => {
      it('are listed as destructive and idempotent', async () => {
        const { tools } = await clientA.listTools();
        for (const name of ['delete_plan', 'delete_artifact', 'delete_research_output']) {
          expect(tools.find((t) => t.name === name)?.annotations).toMatchObject({
            destructiveHint: true,
            idempotentHint: true,
            readOnlyHint: false,
          });
        }
      });

      it('treat another org’s ids exactly like missing ones, and change nothing', async () => {
        const [artifact, output] = doomed.sources;
        for (const [name, args, random] of [
          ['delete_plan', { planId: doomed.planId }, { planId: randomUUID() }],
          ['delete_artifact', { artifactId: artifact }, { artifactId: randomUUID() }],
          ['delete_research_output', { outputId: output }, { outputId: randomUUID() }],
        ] as const) {
          expect(await errorOf(b, name, args)).toEqual(await errorOf(b, name, random));
        }
        expect((await a.ok('get_plan_status', { planId: doomed.planId })).data.planId).toBe(doomed.planId);
      });

      it('delete_plan removes the plan and everything it produced from every tool and from search', async () => {
        const answer = await a.ok('delete_plan', { planId: doomed.planId });
        expect(answer.data).toEqual({
          planId: doomed.planId,
          deleted: true,
          stepsDeleted: 1,
          artifactsDeleted: 2,
          outputsDeleted: 1,
          extractionResultsDeleted: 0,
        });
        const gone = await searchUntil({ query: WORD, limit: 50 }, (r) =>
          doomed.sources.every((id) => !foundIds(r).includes(id)),
        );
        expect(foundIds(gone)).toEqual(expect.not.arrayContaining([doomed.sources[0]]));
        for (const id of doomed.sources) expect(foundIds(gone)).not.toContain(id);
        expect(foundIds(gone)).toEqual(expect.arrayContaining(kept.sources));
        expect((await a.ok('search_sources', { query: WORD, planId: doomed.planId })).data.resultCount).toBe(0);

        // Every tool that takes the plan id answers exactly as for an id that never existed.
        const random = randomUUID();
        const byPlan: [string, (planId: string) => Record<string, unknown>][] = [
          ['delete_plan', (planId) => ({ planId })],
          ['get_plan_status', (planId) => ({ planId })],
          ['get_next_step', (planId) => ({ planId })],
          ['get_research_context', (planId) => ({ planId })],
          ['get_step_context', (planId) => ({ planId, stepId: doomed.stepId })],
          ['store_research', (planId) => ({ artifactType: 'finding', title: 't', content: {}, planId })],
          ['store_research_output', (planId) => ({ planId, mediaType: 'markdown', title: 't', content: 'x' })],
          [
            'submit_subagent_report',
            (planId) => ({ planId, stepId: doomed.stepId, description: 'd', report: { a: 1 } }),
          ],
        ];
        for (const [name, args] of byPlan) {
          const deleted = await errorOf(a, name, args(doomed.planId));
          expect({ name, ...deleted }).toEqual({ name, ...(await errorOf(a, name, args(random))) });
          expect({ name, code: deleted.code }).toEqual({ name, code: 'PLAN_NOT_FOUND' });
        }
        const [artifact, output, report] = doomed.sources;
        for (const id of [artifact!, report!])
          expect(await errorOf(a, 'delete_artifact', { artifactId: id })).toEqual(
            await errorOf(a, 'delete_artifact', { artifactId: random }),
          );
        expect(await errorOf(a, 'delete_research_output', { outputId: output })).toEqual(
          await errorOf(a, 'delete_research_output', { outputId: random }),
        );
        const listed = await a.ok('list_active_plans', {});
        expect(JSON.stringify(listed.data)).not.toContain(doomed.planId);
        expect(JSON.stringify(listed.data)).toContain(kept.planId);
      });

      it('delete_artifact and delete_research_output remove one source each, from search too', async () => {
        const [artifact, output, report] = kept.sources;
        expect((await a.ok('delete_artifact', { artifactId: artifact })).data).toEqual({
          artifactId: artifact,
          deleted: true,
          extractionResultsDeleted: 0,
        });
        expect((await a.ok('delete_research_output', { outputId: output })).data).toEqual({
          outputId: output,
          deleted: true,
        });
        const after = await searchUntil(
          { query: WORD, limit: 50 },
          (r) => !foundIds(r).includes(artifact!) && !foundIds(r).includes(output!),
        );
        expect(foundIds(after)).not.toContain(artifact);
        expect(foundIds(after)).not.toContain(output);
        expect(foundIds(after)).toContain(report);
        // The plan stays, without them.
        const context = (await a.ok('get_research_context', { planId: kept.planId })).data;
        expect(JSON.stringify(context)).not.toContain(artifact);
      });

      it('stays deleted when the indexer is restarted and replays the whole log', async () => {
        const { services, database } = gateway;
        await services.indexer.close();
        await rewindConsumer(database.admin, 'indexer');
        replayed = await startIndexer({
          host: '127.0.0.1',
          logger: createLogger({ service: 'indexer-replay', level: 'silent' }),
          databaseUrl: appUrlFrom(database.adminUrl, 'quarry_indexer', 'indexer-test-password'),
          backends: services.backends,
        });
        const deadline = Date.now() + 20_000;
        while ((await replayed.lag()).pending > 0 && Date.now() < deadline) await sleep(100);
        expect((await replayed.lag()).pending).toBe(0);
        const answer = await a.ok('search_sources', { query: WORD, limit: 50 });
        const deleted = [...doomed.sources, kept.sources[0]!, kept.sources[1]!];
        for (const id of deleted) expect(foundIds(answer)).not.toContain(id);
        expect(foundIds(answer)).toContain(kept.sources[2]);
        // Nothing of the deleted text is left in PostgreSQL's outbox either.
        const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from events.outbox where payload::text like ${`%${WORD}%`}`.execute(database.admin);
        expect(rows[0]!.n).toBe(1); // the kept subagent report's content.created
      });
    });
  });
}
