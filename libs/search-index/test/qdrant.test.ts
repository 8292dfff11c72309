import type { Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import {
  buildQdrantClient,
  EmbedderMismatchError,
  openQdrantVectorIndex,
  pointId,
  prepareSource,
  sourceKeyString,
  type EmbeddedSource,
  type VectorIndex,
} from '../src/index.js';
import {
  collectionInfo,
  IDENTITY,
  keyPayload,
  qdrantReplies,
  recordingServer,
  type Responder,
  type Sent,
} from './qdrant-mock.js';

// The adapter against a recording server (qdrant-mock.ts): the tests read `sent` and set `respond`.
let server: Server;
let url: string;
let sent: Sent[] = [];
let respond: Responder = () => ({ status: 404, result: null });

beforeAll(async () => {
  ({ server, url } = await recordingServer((entry) => {
    sent.push(entry);
    return respond(entry);
  }));
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('Qdrant vector adapter: exact requests (offline)', () => {
  let index: VectorIndex;
  let storedPoints: { id: string; payload: Record<string, unknown>; vector?: number[] }[];
  /** Scroll pages after the first, answered in turn (the first page is `storedPoints`). */
  let laterPages: { id: string; payload: Record<string, unknown> }[][];

  beforeEach(async () => {
    sent = [];
    storedPoints = [];
    laterPages = [];
    respond = qdrantReplies(
      () => storedPoints,
      () => laterPages,
    );
    index = await openQdrantVectorIndex({ client: buildQdrantClient(url), embedder: IDENTITY });
  });

  it('creates a cosine collection recording the embedder, with a tenant payload index on org_id and a datetime one on created_at', () => {
    expect(sent[0]).toMatchObject({ method: 'GET', path: '/collections/quarry_chunks/exists' });
    expect(sent[1]).toEqual({
      method: 'PUT',
      path: '/collections/quarry_chunks',
      body: {
        vectors: { size: 4, distance: 'Cosine' },
        metadata: { quarry_embedder: 'local-ngram-v1', quarry_dimension: 4 },
      },
    });
    expect(sent[2]).toEqual({
      method: 'PUT',
      path: '/collections/quarry_chunks/index?wait=true',
      body: { field_name: 'org_id', field_schema: { type: 'keyword', is_tenant: true } },
    });
    expect(sent.slice(3).map((r) => (r.body as { field_name: string; field_schema: string }).field_name)).toEqual([
      'source_table',
      'source_id',
      'plan_id',
      'artifact_type',
      'tags',
      'created_at',
    ]);
    expect(sent.slice(3, -1).every((r) => (r.body as { field_schema: string }).field_schema === 'keyword')).toBe(true);
    expect(sent.at(-1)!.body).toEqual({ field_name: 'created_at', field_schema: 'datetime' });
  });

  it('searches with the org and every filter in the payload filter', async () => {
    sent = [];
    const hits = await index.search([0.5, 0.5, 0.5, 0.5], {
      orgId: 'org-a',
      limit: 5,
      filters: {
        sourceTable: 'research_artifact',
        artifactType: 'finding',
        planId: 'p1',
        tags: ['ice', 'climate'],
        createdSince: '2026-01-01T00:00:00.000Z',
        createdUntil: '2026-06-30T23:59:59.999Z',
      },
    });
    expect(sent).toEqual([
      {
        method: 'POST',
        path: '/collections/quarry_chunks/points/query',
        body: {
          query: [0.5, 0.5, 0.5, 0.5],
          filter: {
            must: [
              { key: 'org_id', match: { value: 'org-a' } },
              { key: 'source_table', match: { value: 'research_artifact' } },
              { key: 'artifact_type', match: { value: 'finding' } },
              { key: 'plan_id', match: { value: 'p1' } },
              { key: 'tags', match: { value: 'ice' } },
              { key: 'tags', match: { value: 'climate' } },
              { key: 'created_at', range: { gte: '2026-01-01T00:00:00.000Z', lte: '2026-06-30T23:59:59.999Z' } },
            ],
          },
          limit: 5,
          with_payload: true,
        },
      },
    ]);
    expect(hits).toEqual([
      {
        sourceTable: 'research_artifact',
        sourceId: 's1',
        chunkNo: 1,
        title: 'Glaciers',
        text: 'Glacier retreat.',
        start: 300,
        end: 316,
        score: 0.8731,
        tags: ['ice'],
      },
    ]);
  });

  it('upserts changed points with their payload and deletes vanished ones, scoped by org', async () => {
    const meta = { orgId: 'org-a', sourceTable: 'research_artifact', sourceId: 's1', title: 'T', tags: ['x'] };
    const prepared = prepareSource(meta, 'Fresh text.');
    const source: EmbeddedSource = {
      ...prepared,
      chunks: prepared.chunks.map((c) => ({ ...c, vector: [1, 0, 0, 0] })),
    };
    storedPoints = [
      { id: pointId(meta, 0), payload: { ...keyPayload(meta), chunk_no: 0, content_hash: 'old' } },
      { id: pointId(meta, 1), payload: { ...keyPayload(meta), chunk_no: 1, content_hash: 'gone' } },
    ];
    sent = [];
    expect(await index.upsert(source)).toEqual({ inserted: 0, updated: 1, deleted: 1, unchanged: 0 });
    expect(sent[0]).toEqual({
      method: 'POST',
      path: '/collections/quarry_chunks/points/scroll',
      body: {
        filter: {
          should: [
            {
              must: [
                { key: 'org_id', match: { value: 'org-a' } },
                { key: 'source_table', match: { value: 'research_artifact' } },
                { key: 'source_id', match: { any: ['s1'] } },
              ],
            },
          ],
        },
        limit: 1024,
        with_payload: ['org_id', 'source_table', 'source_id', 'chunk_no', 'content_hash'],
        with_vector: false,
      },
    });
    expect(sent[1]).toEqual({
      method: 'PUT',
      path: '/collections/quarry_chunks/points?wait=true',
      body: {
        points: [
          {
            id: pointId(meta, 0),
            vector: [1, 0, 0, 0],
            payload: {
              org_id: 'org-a',
              source_table: 'research_artifact',
              source_id: 's1',
              chunk_no: 0,
              content_hash: source.chunks[0]!.contentHash,
              plan_id: null,
              artifact_type: null,
              tags: ['x'],
              created_at: null,
              title: 'T',
              text: 'Fresh text.',
              start_offset: 0,
              end_offset: 11,
            },
          },
        ],
      },
    });
    expect(sent[2]).toEqual({
      method: 'POST',
      path: '/collections/quarry_chunks/points/delete?wait=true',
      body: { points: [pointId(meta, 1)] },
    });
  });

  it('reads the hashes of many sources with one scroll filter: a should branch per org and table, each with its org', async () => {
    const a1 = { orgId: 'org-a', sourceTable: 'research_artifact', sourceId: 's1' };
    const a2 = { ...a1, sourceId: 's2' };
    const b1 = { ...a1, orgId: 'org-b' };
    const out = { ...a1, sourceTable: 'research_output', sourceId: 'o1' };
    storedPoints = [
      { id: pointId(a1, 0), payload: { ...keyPayload(a1), chunk_no: 0, content_hash: 'a1-0' } },
      { id: pointId(b1, 0), payload: { ...keyPayload(b1), chunk_no: 0, content_hash: 'b1-0' } },
    ];
    laterPages = [[{ id: pointId(a1, 1), payload: { ...keyPayload(a1), chunk_no: 1, content_hash: 'a1-1' } }]];
    sent = [];
    expect(await index.hashesMany([a1, a2, b1, out, a1])).toEqual(
      new Map([
        [
          sourceKeyString(a1),
          new Map([
            [0, 'a1-0'],
            [1, 'a1-1'],
          ]),
        ],
        [sourceKeyString(a2), new Map()],
        [sourceKeyString(b1), new Map([[0, 'b1-0']])],
        [sourceKeyString(out), new Map()],
      ]),
    );
    const filter = {
      should: [
        {
          must: [
            { key: 'org_id', match: { value: 'org-a' } },
            { key: 'source_table', match: { value: 'research_artifact' } },
            { key: 'source_id', match: { any: ['s1', 's2'] } },
          ],
        },
        {
          must: [
            { key: 'org_id', match: { value: 'org-b' } },
            { key: 'source_table', match: { value: 'research_artifact' } },
            { key: 'source_id', match: { any: ['s1'] } },
          ],
        },
        {
          must: [
            { key: 'org_id', match: { value: 'org-a' } },
            { key: 'source_table', match: { value: 'research_output' } },
            { key: 'source_id', match: { any: ['o1'] } },
          ],
        },
      ],
    };
    const page = {
      filter,
      limit: 1024,
      with_payload: ['org_id', 'source_table', 'source_id', 'chunk_no', 'content_hash'],
      with_vector: false,
    };
    expect(sent).toEqual([
      { method: 'POST', path: '/collections/quarry_chunks/points/scroll', body: page },
      { method: 'POST', path: '/collections/quarry_chunks/points/scroll', body: { ...page, offset: 1 } },
    ]);
    sent = [];
    expect(await index.hashesMany([])).toEqual(new Map());
    expect(sent).toEqual([]);
  });

  it('reads stored texts and vectors with the same scroll filter, asking for the text and the vectors', async () => {
    const a1 = { orgId: 'org-a', sourceTable: 'research_artifact', sourceId: 's1' };
    const b1 = { ...a1, orgId: 'org-b' };
    storedPoints = [
      {
        id: pointId(a1, 0),
        payload: { ...keyPayload(a1), chunk_no: 0, content_hash: 'a1-0', text: 'Moraines.' },
        vector: [0.5, 0.25],
      },
    ];
    sent = [];
    expect(await index.storedVectors([a1, b1])).toEqual(
      new Map([
        [sourceKeyString(a1), new Map([[0, { text: 'Moraines.', vector: [0.5, 0.25] }]])],
        [sourceKeyString(b1), new Map()],
      ]),
    );
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toMatchObject({
      with_payload: ['org_id', 'source_table', 'source_id', 'chunk_no', 'content_hash', 'text'],
      with_vector: true,
    });
    expect(JSON.stringify(sent[0]!.body)).toContain('"org-b"');
  });

  it('upserts many sources of two orgs with one scroll, upserts of at most 256 points and one delete', async () => {
    const vector = [0, 1, 0, 0];
    const sources = Array.from({ length: 260 }, (_, i) =>
      prepareSource(
        { orgId: i % 2 ? 'org-b' : 'org-a', sourceTable: 'research_artifact', sourceId: `s${i}`, title: `T${i}` },
        `Text ${i}.`,
      ),
    );
    const [s0, s1] = [sources[0]!, sources[1]!];
    storedPoints = [
      { id: pointId(s0, 0), payload: { ...keyPayload(s0), chunk_no: 0, content_hash: s0.chunks[0]!.contentHash } },
      { id: pointId(s0, 1), payload: { ...keyPayload(s0), chunk_no: 1, content_hash: 'gone' } },
      { id: pointId(s1, 3), payload: { ...keyPayload(s1), chunk_no: 3, content_hash: 'gone' } },
    ];
    const asked: number[] = [];
    sent = [];
    const reports = await index.upsertMany(
      sources,
      async (chunks) => (asked.push(chunks.length), chunks.map(() => vector)),
    );
    expect(reports[0]).toEqual({ inserted: 0, updated: 0, deleted: 1, unchanged: 1 });
    expect(reports[1]).toEqual({ inserted: 1, updated: 0, deleted: 1, unchanged: 0 });
    expect(reports.slice(2).every((r) => r.inserted === 1 && r.updated + r.deleted + r.unchanged === 0)).toBe(true);
    expect(asked).toEqual([259]); // every chunk but the unchanged one, in one call
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /collections/quarry_chunks/points/scroll',
      'PUT /collections/quarry_chunks/points?wait=true',
      'PUT /collections/quarry_chunks/points?wait=true',
      'POST /collections/quarry_chunks/points/delete?wait=true',
    ]);
    const upserted = [
      ...(sent[1]!.body as { points: object[] }).points,
      ...(sent[2]!.body as { points: object[] }).points,
    ];
    expect((sent[1]!.body as { points: object[] }).points).toHaveLength(256);
    expect(upserted).toEqual(
      sources.slice(1).map((s) => ({
        id: pointId(s, 0),
        vector,
        payload: {
          org_id: s.orgId,
          source_table: 'research_artifact',
          source_id: s.sourceId,
          chunk_no: 0,
          content_hash: s.chunks[0]!.contentHash,
          plan_id: null,
          artifact_type: null,
          tags: [],
          created_at: null,
          title: s.title,
          text: s.chunks[0]!.text,
          start_offset: 0,
          end_offset: s.chunks[0]!.end,
        },
      })),
    );
    expect(sent[3]!.body).toEqual({ points: [pointId(s0, 1), pointId(s1, 3)] });
  });

  it('derives stable UUID point ids that differ per org', () => {
    const key = { orgId: 'org-a', sourceTable: 't', sourceId: 's' };
    expect(pointId(key, 0)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(pointId(key, 0)).toBe(pointId({ ...key }, 0));
    expect(pointId({ ...key, orgId: 'org-b' }, 0)).not.toBe(pointId(key, 0));
  });

  it('refuses an existing collection built by another embedder or dimension', async () => {
    respond = (req) =>
      req.path.endsWith('/exists')
        ? { status: 200, result: { exists: true } }
        : {
            status: 200,
            result: collectionInfo(4, { quarry_embedder: 'http:text-embedding-3-small', quarry_dimension: 4 }),
          };
    await expect(openQdrantVectorIndex({ client: buildQdrantClient(url), embedder: IDENTITY })).rejects.toThrow(
      EmbedderMismatchError,
    );
    respond = (req) =>
      req.path.endsWith('/exists')
        ? { status: 200, result: { exists: true } }
        : { status: 200, result: collectionInfo(8) };
    await expect(openQdrantVectorIndex({ client: buildQdrantClient(url), embedder: IDENTITY })).rejects.toThrow(
      EmbedderMismatchError,
    );
    respond = (req) =>
      req.path.endsWith('/exists')
        ? { status: 200, result: { exists: true } }
        : { status: 200, result: collectionInfo(4, { quarry_embedder: 'local-ngram-v1', quarry_dimension: 4 }) };
    sent = [];
    await expect(openQdrantVectorIndex({ client: buildQdrantClient(url), embedder: IDENTITY })).resolves.toBeDefined();
    // A collection made before date ranges gains the created_at index once; one holding it is left alone.
    expect(sent.filter((r) => r.path.includes('/index'))).toEqual([
      {
        method: 'PUT',
        path: '/collections/quarry_chunks/index?wait=true',
        body: { field_name: 'created_at', field_schema: 'datetime' },
      },
    ]);
    const info = collectionInfo(4, { quarry_embedder: 'local-ngram-v1', quarry_dimension: 4 });
    const indexed = {
      ...info,
      payload_schema: { ...info.payload_schema, created_at: { data_type: 'datetime', points: 0 } },
    };
    respond = (req) => ({ status: 200, result: req.path.endsWith('/exists') ? { exists: true } : indexed });
    sent = [];
    await openQdrantVectorIndex({ client: buildQdrantClient(url), embedder: IDENTITY });
    expect(sent.map((r) => r.path)).toEqual(['/collections/quarry_chunks/exists', '/collections/quarry_chunks']);
  });
});
