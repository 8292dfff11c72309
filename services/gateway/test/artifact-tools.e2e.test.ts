import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { type Kysely, sql } from 'kysely';
import { connectClient, startTestGateway } from './harness.js';
import { expectToolError, toolsOf, type CallTool } from './tool-answers.js';

// The artifact tools of issue 4 through the real chain (MCP client → gateway → artifact-store →
// plan-engine → PostgreSQL): what each tool stores and answers, the content.created event each
// text-bearing write leaves in the outbox in the same transaction, the plan's artifacts in the
// plan engine's context tools, and bad input refused with a clear tool error, leaving no row
// and no event behind. Another org's plan and step ids behave exactly like missing ones.

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
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
  gateway = await startTestGateway();
  admin = gateway.database.admin as Kysely<unknown>;
  clientA = await connectClient(gateway.url, gateway.token, 'modern');
  const rival = await gateway.admin.createOrg({ slug: 'rival', name: 'Rival Labs' });
  await gateway.admin.addUser({ email: 'eve@rival.test', orgSlug: 'rival', name: 'Eve' });
  const { token } = await gateway.admin.createToken({ orgSlug: 'rival', email: 'eve@rival.test' });
  clientB = await connectClient(gateway.url, token, 'legacy');
  a = toolsOf(clientA);
  b = toolsOf(clientB);
  orgA.id = (await gateway.admin.findOrg('acme'))!.id;
  orgB.id = rival.id;
  Object.assign(orgA, await createPlan(a, 'Acme plan'));
  Object.assign(orgB, await createPlan(b, 'Rival plan'));
});

afterAll(async () => {
  await clientA?.close();
  await clientB?.close();
  await gateway?.close();
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
    });
  });

  it('stores an artifact without a plan, indexing the text values of its content when no contentText is given', async () => {
    const { id } = (
      await a.ok('store_research', {
        artifactType: 'source_list',
        title: 'Sources on sodium batteries',
        content: { sources: ['CATL whitepaper', 'IEA report'], count: 2 },
      })
    ).data;
    const { rows } = await sql<
      Record<string, unknown>
    >`select plan_id, step_id, content_text, confidence, tags from artifact.research_artifacts where id = ${id}`.execute(
      admin,
    );
    expect(rows[0]).toEqual({ plan_id: null, step_id: null, content_text: null, confidence: null, tags: [] });
    const [event] = await eventsFor(id);
    expect(event!.payload).toMatchObject({
      sourceTable: 'research_artifact',
      artifactType: 'source_list',
      text: 'CATL whitepaper\nIEA report',
    });
    expect(event!.payload).not.toHaveProperty('planId');
  });
});

describe('store_research_output', () => {
  it('stores a text output and indexes its summary and text', async () => {
    const answer = await a.ok('store_research_output', {
      planId: orgA.planId,
      mediaType: 'markdown',
      title: 'Lithium market brief',
      content: '# Lithium\n\nPrices fell in 2024.',
      contentSummary: 'A one-page brief on lithium prices.',
      formattingNotesUsed: 'Use headings.',
      sessionId: 'session-1',
    });
    expect(answer.data).toEqual({
      outputId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      mediaType: 'markdown',
      title: 'Lithium market brief',
      stored: true,
    });
    const { rows } = await sql<
      Record<string, unknown>
    >`select * from artifact.research_outputs where id = ${answer.data.outputId}`.execute(admin);
    expect(rows[0]).toMatchObject({
      org_id: orgA.id,
      plan_id: orgA.planId,
      media_type: 'markdown',
      content_text: '# Lithium\n\nPrices fell in 2024.',
      content_bytes: null,
      content_size: 31,
      content_summary: 'A one-page brief on lithium prices.',
      formatting_notes_used: 'Use headings.',
      session_id: 'session-1',
    });
    const events = await eventsFor(answer.data.outputId);
    expect(events.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        sourceTable: 'research_output',
        planId: orgA.planId,
        title: 'Lithium market brief',
        text: 'A one-page brief on lithium prices.\n\n# Lithium\n\nPrices fell in 2024.',
      }),
    ]);
  });

  it('stores a binary document as its decoded bytes and indexes its summary only', async () => {
    const bytes = Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(1000, 7)]);
    const answer = await a.ok('store_research_output', {
      planId: orgA.planId,
      mediaType: 'word',
      title: 'Lithium report',
      content: bytes.toString('base64'),
      contentSummary: 'The full lithium report as a Word document.',
    });
    expect(answer.data).toMatchObject({ mediaType: 'word', stored: true });
    const { rows } = await sql<{ content_bytes: Buffer; content_text: string | null; content_size: number }>`
      select content_bytes, content_text, content_size from artifact.research_outputs where id = ${answer.data.outputId}`.execute(
      admin,
    );
    expect(rows[0]!.content_text).toBeNull();
    expect(rows[0]!.content_size).toBe(1004);
    expect(Buffer.compare(rows[0]!.content_bytes, bytes)).toBe(0);
    const events = await eventsFor(answer.data.outputId);
    expect(events.map((e) => e.payload.text)).toEqual(['The full lithium report as a Word document.']);
  });

  it('stores a binary document without a summary and emits no event (nothing to index)', async () => {
    const answer = await a.ok('store_research_output', {
      planId: orgA.planId,
      mediaType: 'excel',
      title: 'Data',
      content: Buffer.from('spreadsheet bytes').toString('base64'),
    });
    expect(answer.data).toMatchObject({ mediaType: 'excel', stored: true });
    expect(await eventsFor(answer.data.outputId)).toEqual([]);
  });
});

describe('submit_subagent_report', () => {
  it('stores the report as an analysis artifact of the step (source subagent) and emits its event', async () => {
    const answer = await a.ok('submit_subagent_report', {
      planId: orgA.planId,
      stepId: orgA.stepIds[1],
      description: 'Survey recycling capacity in Europe',
      report: { findings: ['Capacity doubles by 2027'], sources: 3 },
      sessionId: 'sub-1',
    });
    expect(answer.data).toEqual({ reportId: expect.stringMatching(/^[0-9a-f-]{36}$/), stored: true });
    const { rows } = await sql<
      Record<string, unknown>
    >`select * from artifact.research_artifacts where id = ${answer.data.reportId}`.execute(admin);
    expect(rows[0]).toMatchObject({
      org_id: orgA.id,
      plan_id: orgA.planId,
      step_id: orgA.stepIds[1],
      artifact_type: 'analysis',
      source: 'subagent',
      title: 'Survey recycling capacity in Europe',
      content: { findings: ['Capacity doubles by 2027'], sources: 3 },
      session_id: 'sub-1',
    });
    const events = await eventsFor(answer.data.reportId);
    expect(events.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        sourceTable: 'research_artifact',
        artifactType: 'analysis',
        planId: orgA.planId,
        stepId: orgA.stepIds[1],
        title: 'Survey recycling capacity in Europe',
        text: 'Survey recycling capacity in Europe\n\nCapacity doubles by 2027',
      }),
    ]);
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
      await a.ok('submit_subagent_report', { planId, stepId: stepIds[1], description: 'Third', report: { z: 'three' } })
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
    expect((await b.ok('get_step_context', { planId: orgB.planId, stepId: orgB.stepIds[0] })).data.artifacts).toEqual(
      [],
    );
  });
});

describe('bad input: a clear tool error, nothing stored, no event', () => {
  const MiB = 1024 * 1024;
  const missing = randomUUID();
  // [what, tool, arguments (functions: ids are known only after setup), code, message]
  const cases: [string, string, () => Record<string, unknown>, string, RegExp][] = [
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
    [
      'oversize content (JSON over 1 MiB)',
      'store_research',
      () => ({ artifactType: 'finding', title: 't', content: { text: 'x'.repeat(MiB) } }),
      'CONTENT_TOO_LARGE',
      /`content` is \d+ bytes; the limit is 1 MiB/,
    ],
    [
      'oversize text output (over 1 MiB of UTF-8)',
      'store_research_output',
      () => ({ planId: orgA.planId, mediaType: 'markdown', title: 't', content: 'é'.repeat(MiB / 2 + 1) }),
      'CONTENT_TOO_LARGE',
      /`content` is 1048578 bytes; the limit is 1 MiB/,
    ],
    [
      'oversize binary output (over 2 MiB decoded)',
      'store_research_output',
      () => ({
        planId: orgA.planId,
        mediaType: 'word',
        title: 't',
        content: Buffer.alloc(2 * MiB + 3).toString('base64'),
        contentSummary: 's',
      }),
      'CONTENT_TOO_LARGE',
      /`content` is 2097155 bytes; the limit is 2 MiB/,
    ],
    [
      'oversize report',
      'submit_subagent_report',
      () => ({ planId: orgA.planId, stepId: orgA.stepIds[0], description: 'd', report: { text: 'x'.repeat(MiB) } }),
      'CONTENT_TOO_LARGE',
      /`report` is \d+ bytes/,
    ],
    [
      'invalid base64 (bad characters)',
      'store_research_output',
      () => ({ planId: orgA.planId, mediaType: 'powerpoint', title: 't', content: 'not base64!', contentSummary: 's' }),
      'INVALID_BASE64',
      /`content` must be the powerpoint document's bytes, base64-encoded/,
    ],
    [
      'invalid base64 (truncated)',
      'store_research_output',
      () => ({ planId: orgA.planId, mediaType: 'excel', title: 't', content: 'QUJDRA=', contentSummary: 's' }),
      'INVALID_BASE64',
      /base64-encoded/,
    ],
    [
      'stepId without planId',
      'store_research',
      () => ({ artifactType: 'finding', title: 't', content: {}, stepId: orgA.stepIds[0] }),
      'INVALID_ARGUMENT',
      /`stepId` needs planId/,
    ],
    [
      'unknown planId (store_research)',
      'store_research',
      () => ({ artifactType: 'finding', title: 't', content: {}, contentText: 'x', planId: missing }),
      'PLAN_NOT_FOUND',
      new RegExp(`No research plan with id ${missing}`),
    ],
    [
      'unknown planId (store_research_output)',
      'store_research_output',
      () => ({ planId: missing, mediaType: 'markdown', title: 't', content: 'x' }),
      'PLAN_NOT_FOUND',
      new RegExp(missing),
    ],
    [
      'unknown planId (submit_subagent_report)',
      'submit_subagent_report',
      () => ({ planId: missing, stepId: orgA.stepIds[0], description: 'd', report: { a: 'b' } }),
      'PLAN_NOT_FOUND',
      new RegExp(missing),
    ],
    [
      'unknown stepId (store_research)',
      'store_research',
      () => ({
        artifactType: 'finding',
        title: 't',
        content: {},
        contentText: 'x',
        planId: orgA.planId,
        stepId: missing,
      }),
      'STEP_NOT_FOUND',
      new RegExp(`Step ${missing} is not part of this plan`),
    ],
    [
      'unknown stepId (submit_subagent_report)',
      'submit_subagent_report',
      () => ({ planId: orgA.planId, stepId: missing, description: 'd', report: { a: 'b' } }),
      'STEP_NOT_FOUND',
      new RegExp(missing),
    ],
    [
      "another org's planId (store_research)",
      'store_research',
      () => ({ artifactType: 'finding', title: 't', content: {}, contentText: 'x', planId: orgB.planId }),
      'PLAN_NOT_FOUND',
      /No research plan with id/,
    ],
    [
      "another org's planId (store_research_output)",
      'store_research_output',
      () => ({ planId: orgB.planId, mediaType: 'html', title: 't', content: '<p>x</p>' }),
      'PLAN_NOT_FOUND',
      /No research plan with id/,
    ],
    [
      "another org's plan and step (submit_subagent_report)",
      'submit_subagent_report',
      () => ({ planId: orgB.planId, stepId: orgB.stepIds[0], description: 'd', report: { a: 'b' } }),
      'PLAN_NOT_FOUND',
      /No research plan with id/,
    ],
    [
      "another org's step on an own plan",
      'store_research',
      () => ({
        artifactType: 'finding',
        title: 't',
        content: {},
        contentText: 'x',
        planId: orgA.planId,
        stepId: orgB.stepIds[0],
      }),
      'STEP_NOT_FOUND',
      /is not part of this plan/,
    ],
    [
      'a step of another own plan',
      'submit_subagent_report',
      () => ({ planId: orgA.planId, stepId: contextPlanStep, description: 'd', report: { a: 'b' } }),
      'STEP_NOT_FOUND',
      /is not part of this plan/,
    ],
  ];
  let contextPlanStep = '';

  beforeAll(async () => {
    contextPlanStep = (await createPlan(a, 'Other plan')).stepIds[0]!;
  });

  it.each(cases)('%s', async (_what, tool, args, code, message) => {
    const before = await counts();
    const answer = await a.call(tool, args());
    expectToolError(answer, code, message);
    expect(await counts()).toEqual(before);
  });

  it("answers another org's ids exactly like missing ones (same code, same message shape)", async () => {
    const foreign = await a.call('store_research', {
      artifactType: 'finding',
      title: 't',
      content: {},
      planId: orgB.planId,
    });
    const absent = await a.call('store_research', {
      artifactType: 'finding',
      title: 't',
      content: {},
      planId: missing,
    });
    expect(foreign.data.error.code).toBe(absent.data.error.code);
    expect(foreign.data.error.message.replace(orgB.planId, '<id>')).toBe(
      absent.data.error.message.replace(missing, '<id>'),
    );
  });
});
