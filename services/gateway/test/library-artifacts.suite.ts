import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { type Kysely, sql } from 'kysely';
import { connectClient } from './official-client.js';
import { suiteOrg, type TestSystem } from './shared-system.js';
import { expectToolError, toolsOf, type CallTool } from './tool-answers.js';

// The artifact tools through the real chain (MCP client → gateway → artifact-store → plan-engine →
// PostgreSQL): a write lands as its row and its content.created event, each tool answers in its
// MCP shape, the plan's artifacts show in the plan engine's context tools (and never another
// org's), and bad arguments are refused with a clear tool error — by the gateway's codec before any
// rpc, or by the service with its own stable code — leaving no row and no event behind. (What each
// rpc stores and refuses, in detail: services/artifact-store/test/artifacts and refusals.test.ts.)

export function artifactToolsSuite(system: () => TestSystem): void {
  describe('the artifact tools', () => {
    let gateway: TestSystem;
    let clientA: Client;
    let clientB: Client;
    let a: { call: CallTool; ok: CallTool };
    let b: { call: CallTool; ok: CallTool };
    let admin: Kysely<unknown>;
    const orgA = { id: '', planId: '', stepIds: [] as string[] };
    const orgB = { id: '', planId: '', stepIds: [] as string[] };

    interface OutboxEvent {
      org_id: string;
      topic: string;
      key: string;
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- event payloads are JSON
      payload: Record<string, any>;
    }

    async function eventsFor(sourceId: string): Promise<OutboxEvent[]> {
      const { rows } =
        await sql<OutboxEvent>`select org_id, topic, key, payload from events.outbox where payload->>'sourceId' = ${sourceId} order by id`.execute(
          admin,
        );
      return rows;
    }

    /** Rows in both tables and events in the outbox (as superuser: every org). */
    async function counts() {
      const { rows } = await sql<{ artifacts: number; outputs: number; events: number }>`
    select (select count(*)::int from artifact.research_artifacts) as artifacts,
           (select count(*)::int from artifact.research_outputs) as outputs,
           (select count(*)::int from events.outbox) as events
  `.execute(admin);
      return rows[0]!;
    }

    async function createPlan(tools: { ok: CallTool }, name: string) {
      const { planId } = (
        await tools.ok('create_research_plan', {
          name,
          researchQuestion: `What does ${name} find?`,
          steps: [
            { stepType: 'search', instructions: 'Find sources' },
            { stepType: 'synthesize', instructions: 'Write it up' },
          ],
        })
      ).data;
      const { steps } = (await tools.ok('get_research_context', { planId })).data;
      return { planId: planId as string, stepIds: steps.map((s: { stepId: string }) => s.stepId) as string[] };
    }

    beforeAll(async () => {
      gateway = system();
      admin = gateway.database.admin as Kysely<unknown>;
      const acme = await suiteOrg(gateway, 'artifacts', 'acme');
      clientA = await connectClient(gateway.url, acme.token, 'modern');
      const rival = await suiteOrg(gateway, 'artifacts', 'rival');
      clientB = await connectClient(gateway.url, rival.token, 'legacy');
      a = toolsOf(clientA);
      b = toolsOf(clientB);
      orgA.id = acme.orgId;
      orgB.id = rival.orgId;
      Object.assign(orgA, await createPlan(a, 'Acme plan'));
      Object.assign(orgB, await createPlan(b, 'Rival plan'));
    });

    afterAll(async () => {
      await clientA?.close();
      await clientB?.close();
    });

    describe('store_research', () => {
      it('stores the artifact with everything given and emits its content.created event', async () => {
        const answer = await a.ok('store_research', {
          artifactType: 'finding',
          title: 'Lithium prices fell 20% in 2024',
          content: { claim: 'prices fell', sources: [{ url: 'https://example.org/a' }], magnitude: 0.2 },
          contentText: 'Lithium carbonate prices fell by about 20 percent during 2024.',
          confidence: 0.8,
          planId: orgA.planId,
          stepId: orgA.stepIds[0],
          tags: ['lithium', 'prices'],
        });
        expect(answer.data).toEqual({
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          artifactType: 'finding',
          title: 'Lithium prices fell 20% in 2024',
          stored: true,
        });
        const id = answer.data.id as string;

        const { rows } = await sql<
          Record<string, unknown>
        >`select * from artifact.research_artifacts where id = ${id}`.execute(admin);
        expect(rows[0]).toMatchObject({
          org_id: orgA.id,
          plan_id: orgA.planId,
          step_id: orgA.stepIds[0],
          artifact_type: 'finding',
          source: 'client',
          title: 'Lithium prices fell 20% in 2024',
          content: { claim: 'prices fell', sources: [{ url: 'https://example.org/a' }], magnitude: 0.2 },
          content_text: 'Lithium carbonate prices fell by about 20 percent during 2024.',
          confidence: 0.8,
          tags: ['lithium', 'prices'],
        });

        const events = await eventsFor(id);
        expect(events).toHaveLength(1);
        expect(events[0]).toMatchObject({ org_id: orgA.id, topic: 'content.created', key: orgA.id });
        expect(events[0]!.payload).toEqual({
          schemaVersion: 1,
          eventId: expect.any(String),
          type: 'content.created',
          orgId: orgA.id,
          sourceTable: 'research_artifact',
          sourceId: id,
          planId: orgA.planId,
          stepId: orgA.stepIds[0],
          artifactType: 'finding',
          title: 'Lithium prices fell 20% in 2024',
          text: 'Lithium carbonate prices fell by about 20 percent during 2024.',
          tags: ['lithium', 'prices'],
          occurredAt: expect.any(String),
          createdAt: (rows[0]!.created_at as Date).toISOString(),
        });
      });
    });

    describe('store_research_output and submit_subagent_report', () => {
      it('answer in their MCP shape, enums by name', async () => {
        const output = await a.ok('store_research_output', {
          planId: orgA.planId,
          mediaType: 'markdown',
          title: 'Lithium market brief',
          content: '# Lithium\n\nPrices fell in 2024.',
          contentSummary: 'A one-page brief on lithium prices.',
        });
        expect(output.data).toEqual({
          outputId: expect.stringMatching(/^[0-9a-f-]{36}$/),
          mediaType: 'markdown',
          title: 'Lithium market brief',
          stored: true,
        });
        const report = await a.ok('submit_subagent_report', {
          planId: orgA.planId,
          stepId: orgA.stepIds[1],
          description: 'Survey recycling capacity in Europe',
          report: { findings: ['Capacity doubles by 2027'], sources: 3 },
        });
        expect(report.data).toEqual({ reportId: expect.stringMatching(/^[0-9a-f-]{36}$/), stored: true });
        expect((await eventsFor(report.data.reportId)).map((e) => e.payload.stepId)).toEqual([orgA.stepIds[1]]);
      });
    });

    describe("the plan's artifacts in the plan engine's context tools", () => {
      it('get_step_context and get_research_context list exactly the artifacts of the plan, oldest first', async () => {
        const { planId, stepIds } = await createPlan(a, 'Context plan');
        const first = (
          await a.ok('store_research', {
            artifactType: 'analysis',
            title: 'First',
            content: { x: 1 },
            confidence: 0.6,
            planId,
            stepId: stepIds[0],
          })
        ).data.id;
        const second = (
          await a.ok('store_research', { artifactType: 'summary', title: 'Second', content: { y: 2 }, planId })
        ).data.id;
        const report = (
          await a.ok('submit_subagent_report', {
            planId,
            stepId: stepIds[1],
            description: 'Third',
            report: { z: 'three' },
          })
        ).data.reportId;
        await a.ok('store_research', { artifactType: 'finding', title: 'Elsewhere', content: {}, planId: orgA.planId });
        await a.ok('store_research_output', {
          planId,
          mediaType: 'conversation',
          title: 'Not an artifact',
          content: 'An answer.',
        });

        const expected = [
          {
            id: first,
            artifactType: 'analysis',
            title: 'First',
            confidence: 0.6,
            stepId: stepIds[0],
            createdAt: expect.any(String),
          },
          { id: second, artifactType: 'summary', title: 'Second', createdAt: expect.any(String) },
          { id: report, artifactType: 'analysis', title: 'Third', stepId: stepIds[1], createdAt: expect.any(String) },
        ];
        expect((await a.ok('get_research_context', { planId })).data.artifacts).toEqual(expected);
        expect((await a.ok('get_step_context', { planId, stepId: stepIds[1] })).data.artifacts).toEqual(expected);
      });

      it("never shows another org's artifacts", async () => {
        expect((await b.ok('get_research_context', { planId: orgB.planId })).data.artifacts).toEqual([]);
        expect(
          (await b.ok('get_step_context', { planId: orgB.planId, stepId: orgB.stepIds[0] })).data.artifacts,
        ).toEqual([]);
      });
    });

    describe('bad input: a clear tool error, nothing stored, no event', () => {
      const MiB = 1024 * 1024;
      const missing = randomUUID();
      // [what, tool, arguments (functions: ids are known only after setup), code, message]
      const cases: [string, string, () => Record<string, unknown>, string, RegExp][] = [
        // Refused by the gateway's codec, against the tool's input schema: no rpc is made.
        [
          'unknown artifactType',
          'store_research',
          () => ({ artifactType: 'opinion', title: 't', content: {} }),
          'INVALID_ARGUMENT',
          /artifactType: must be one of "analysis", "synthesis", "comparison", "summary", "source_list", "finding"/,
        ],
        [
          'unknown mediaType',
          'store_research_output',
          () => ({ planId: orgA.planId, mediaType: 'pdf', title: 't', content: 'x' }),
          'INVALID_ARGUMENT',
          /mediaType: must be one of "conversation", "markdown", "html", "word", "excel", "powerpoint"/,
        ],
        [
          'content that is not an object',
          'store_research',
          () => ({ artifactType: 'finding', title: 't', content: ['a'] }),
          'INVALID_ARGUMENT',
          /content: must be object/,
        ],
        [
          'oversize contentText',
          'store_research',
          () => ({ artifactType: 'finding', title: 't', content: {}, contentText: 'x'.repeat(MiB + 1) }),
          'INVALID_ARGUMENT',
          /contentText: must NOT have more than 1048576 characters/,
        ],
        // Refused by the artifact store (and the plan engine behind it): its code and message reach the model.
        [
          'oversize content (JSON over 1 MiB)',
          'store_research',
          () => ({ artifactType: 'finding', title: 't', content: { text: 'x'.repeat(MiB) } }),
          'CONTENT_TOO_LARGE',
          /`content` is \d+ bytes; the limit is 1 MiB/,
        ],
        [
          "another org's planId",
          'store_research',
          () => ({ artifactType: 'finding', title: 't', content: {}, contentText: 'x', planId: orgB.planId }),
          'PLAN_NOT_FOUND',
          /No research plan with id/,
        ],
        [
          'unknown stepId',
          'submit_subagent_report',
          () => ({ planId: orgA.planId, stepId: missing, description: 'd', report: { a: 'b' } }),
          'STEP_NOT_FOUND',
          new RegExp(missing),
        ],
      ];

      it.each(cases)('%s', async (_what, tool, args, code, message) => {
        const before = await counts();
        const answer = await a.call(tool, args());
        expectToolError(answer, code, message);
        expect(answer.data.error.retryable).toBe(false);
        expect(await counts()).toEqual(before);
      });
    });
  });
}
