import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1 } from '@quarry/contracts';
import { sql } from '@quarry/db';
import { as, startTestStore, type TestStore } from './support.js';

// What StoreResearch, StoreResearchOutput and SubmitSubagentReport store, over gRPC against real
// PostgreSQL, with plan references checked by the real plan engine: every column of the row, and
// the content.created event each text-bearing write leaves in the outbox in the same transaction.
// (The tools end to end, through the gateway: services/gateway/test/library-artifacts.suite.ts.)

const { ArtifactType, MediaType } = artifactV1;
let store: TestStore;
const orgA = randomUUID();
let plan: { planId: string; stepId: string };

interface OutboxEvent {
  org_id: string;
  topic: string;
  key: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- event payloads are JSON
  payload: Record<string, any>;
}

async function eventsFor(sourceId: string): Promise<OutboxEvent[]> {
  const { rows } = await sql<OutboxEvent>`
    select org_id, topic, key, payload from events.outbox where payload->>'sourceId' = ${sourceId} order by id
  `.execute(store.database.admin);
  return rows;
}

/** A row as stored, read past row-level security. */
async function row(table: string, id: string): Promise<Record<string, unknown>> {
  const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)} where id = ${id}`.execute(
    store.database.admin,
  );
  return rows[0]!;
}

beforeAll(async () => {
  store = await startTestStore({ planEngine: true });
  plan = await store.plans.create(orgA);
});
afterAll(async () => {
  await store?.close();
});

describe('StoreResearch', () => {
  it('stores the artifact with everything given and emits its content.created event', async () => {
    const answer = await store.client.call(
      'storeResearch',
      {
        artifactType: ArtifactType.ARTIFACT_TYPE_FINDING,
        title: 'Lithium prices fell 20% in 2024',
        content: { claim: 'prices fell', sources: [{ url: 'https://example.org/a' }], magnitude: 0.2 },
        contentText: 'Lithium carbonate prices fell by about 20 percent during 2024.',
        confidence: 0.8,
        planId: plan.planId,
        stepId: plan.stepId,
        tags: ['lithium', 'prices'],
      },
      as(orgA),
    );
    expect(answer).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      artifactType: ArtifactType.ARTIFACT_TYPE_FINDING,
      title: 'Lithium prices fell 20% in 2024',
      stored: true,
    });
    const stored = await row('artifact.research_artifacts', answer.id);
    expect(stored).toMatchObject({
      org_id: orgA,
      plan_id: plan.planId,
      step_id: plan.stepId,
      artifact_type: 'finding',
      source: 'client',
      title: 'Lithium prices fell 20% in 2024',
      content: { claim: 'prices fell', sources: [{ url: 'https://example.org/a' }], magnitude: 0.2 },
      content_text: 'Lithium carbonate prices fell by about 20 percent during 2024.',
      confidence: 0.8,
      tags: ['lithium', 'prices'],
    });
    const events = await eventsFor(answer.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ org_id: orgA, topic: 'content.created', key: orgA });
    expect(events[0]!.payload).toEqual({
      schemaVersion: 1,
      eventId: expect.any(String),
      type: 'content.created',
      orgId: orgA,
      sourceTable: 'research_artifact',
      sourceId: answer.id,
      planId: plan.planId,
      stepId: plan.stepId,
      artifactType: 'finding',
      title: 'Lithium prices fell 20% in 2024',
      text: 'Lithium carbonate prices fell by about 20 percent during 2024.',
      tags: ['lithium', 'prices'],
      occurredAt: expect.any(String),
      // When the row was stored, which the indexes keep for search results.
      createdAt: (stored.created_at as Date).toISOString(),
    });
  });

  it('stores an artifact without a plan, indexing the text values of its content when no contentText is given', async () => {
    const { id } = await store.client.call(
      'storeResearch',
      {
        artifactType: ArtifactType.ARTIFACT_TYPE_SOURCE_LIST,
        title: 'Sources on sodium batteries',
        content: { sources: ['CATL whitepaper', 'IEA report'], count: 2 },
        tags: [],
      },
      as(orgA),
    );
    const stored = await row('artifact.research_artifacts', id);
    expect({
      plan_id: stored.plan_id,
      step_id: stored.step_id,
      content_text: stored.content_text,
      confidence: stored.confidence,
      tags: stored.tags,
    }).toEqual({ plan_id: null, step_id: null, content_text: null, confidence: null, tags: [] });
    const [event] = await eventsFor(id);
    expect(event!.payload).toMatchObject({
      sourceTable: 'research_artifact',
      artifactType: 'source_list',
      text: 'CATL whitepaper\nIEA report',
    });
    expect(event!.payload).not.toHaveProperty('planId');
  });
});

describe('StoreResearchOutput', () => {
  it('stores a text output and indexes its summary and text', async () => {
    const answer = await store.client.call(
      'storeResearchOutput',
      {
        planId: plan.planId,
        mediaType: MediaType.MEDIA_TYPE_MARKDOWN,
        title: 'Lithium market brief',
        content: '# Lithium\n\nPrices fell in 2024.',
        contentSummary: 'A one-page brief on lithium prices.',
        formattingNotesUsed: 'Use headings.',
        sessionId: 'session-1',
      },
      as(orgA),
    );
    expect(answer).toEqual({
      outputId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      mediaType: MediaType.MEDIA_TYPE_MARKDOWN,
      title: 'Lithium market brief',
      stored: true,
    });
    expect(await row('artifact.research_outputs', answer.outputId)).toMatchObject({
      org_id: orgA,
      plan_id: plan.planId,
      media_type: 'markdown',
      content_text: '# Lithium\n\nPrices fell in 2024.',
      content_bytes: null,
      content_size: 31,
      content_summary: 'A one-page brief on lithium prices.',
      formatting_notes_used: 'Use headings.',
      session_id: 'session-1',
    });
    const events = await eventsFor(answer.outputId);
    expect(events.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        sourceTable: 'research_output',
        planId: plan.planId,
        title: 'Lithium market brief',
        text: 'A one-page brief on lithium prices.\n\n# Lithium\n\nPrices fell in 2024.',
      }),
    ]);
  });

  it('stores a binary document as its decoded bytes and indexes its summary only', async () => {
    const bytes = Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(1000, 7)]);
    const answer = await store.client.call(
      'storeResearchOutput',
      {
        planId: plan.planId,
        mediaType: MediaType.MEDIA_TYPE_WORD,
        title: 'Lithium report',
        content: bytes.toString('base64'),
        contentSummary: 'The full lithium report as a Word document.',
      },
      as(orgA),
    );
    expect(answer).toMatchObject({ mediaType: MediaType.MEDIA_TYPE_WORD, stored: true });
    const stored = await row('artifact.research_outputs', answer.outputId);
    expect(stored.content_text).toBeNull();
    expect(stored.content_size).toBe(1004);
    expect(Buffer.compare(stored.content_bytes as Buffer, bytes)).toBe(0);
    const events = await eventsFor(answer.outputId);
    expect(events.map((e) => e.payload.text)).toEqual(['The full lithium report as a Word document.']);
  });

  it('stores a binary document without a summary and emits no event (nothing to index)', async () => {
    const answer = await store.client.call(
      'storeResearchOutput',
      {
        planId: plan.planId,
        mediaType: MediaType.MEDIA_TYPE_EXCEL,
        title: 'Data',
        content: Buffer.from('spreadsheet bytes').toString('base64'),
      },
      as(orgA),
    );
    expect(answer).toMatchObject({ mediaType: MediaType.MEDIA_TYPE_EXCEL, stored: true });
    expect(await eventsFor(answer.outputId)).toEqual([]);
  });
});

describe('SubmitSubagentReport', () => {
  it('stores the report as an analysis artifact of the step (source subagent) and emits its event', async () => {
    const answer = await store.client.call(
      'submitSubagentReport',
      {
        planId: plan.planId,
        stepId: plan.stepId,
        description: 'Survey recycling capacity in Europe',
        report: { findings: ['Capacity doubles by 2027'], sources: 3 },
        sessionId: 'sub-1',
      },
      as(orgA),
    );
    expect(answer).toEqual({ reportId: expect.stringMatching(/^[0-9a-f-]{36}$/), stored: true });
    expect(await row('artifact.research_artifacts', answer.reportId)).toMatchObject({
      org_id: orgA,
      plan_id: plan.planId,
      step_id: plan.stepId,
      artifact_type: 'analysis',
      source: 'subagent',
      title: 'Survey recycling capacity in Europe',
      content: { findings: ['Capacity doubles by 2027'], sources: 3 },
      session_id: 'sub-1',
    });
    const events = await eventsFor(answer.reportId);
    expect(events.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        sourceTable: 'research_artifact',
        artifactType: 'analysis',
        planId: plan.planId,
        stepId: plan.stepId,
        title: 'Survey recycling capacity in Europe',
        text: 'Survey recycling capacity in Europe\n\nCapacity doubles by 2027',
      }),
    ]);
  });
});
