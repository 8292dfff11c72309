import { beforeEach, describe, expect, it } from '@jest/globals';
import { openOpenSearchBm25Index, prepareSource, sourceKeyString, type Bm25Index } from '../src/index.js';
import { engineReplies, mockClient, type Sent } from './opensearch-mock.js';

describe('OpenSearch BM25 adapter: exact requests (offline)', () => {
  let stored: Record<string, unknown>[];
  /** What the engine holds per `<routing>/<source_id>`, for hash lookups. */
  let storedBySource: Record<string, Record<string, unknown>[]>;
  let sent: Sent[];
  let index: Bm25Index;

  beforeEach(async () => {
    stored = [];
    storedBySource = {};
    const mock = mockClient(
      engineReplies(
        () => stored,
        () => storedBySource,
      ),
    );
    sent = mock.sent;
    index = await openOpenSearchBm25Index({ client: mock.client, refresh: true });
  });

  it('installs the index template (english analyzer, org_id keyword, routing required) and creates the index', () => {
    expect(sent.slice(0, 3).map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /_index_template/quarry-chunks-template',
      'HEAD /quarry-chunks',
      'PUT /quarry-chunks',
    ]);
    const template = sent[0]!.body as {
      index_patterns: string[];
      template: { settings: Record<string, unknown>; mappings: Record<string, unknown> };
    };
    expect(template.index_patterns).toEqual(['quarry-chunks*']);
    expect(template.template.settings).toEqual({
      number_of_shards: 1,
      number_of_replicas: 1,
      analysis: { analyzer: { default: { type: 'english' } } },
    });
    expect(template.template.mappings).toMatchObject({
      _routing: { required: true },
      dynamic: 'strict',
      properties: {
        org_id: { type: 'keyword' },
        tags: { type: 'keyword' },
        plan_id: { type: 'keyword' },
        text: { type: 'text', analyzer: 'english' },
        title: { type: 'text', analyzer: 'english' },
      },
    });
  });

  it('searches with the org and every filter in bool.filter (the dates as one range), routed by org', async () => {
    stored = [
      {
        source_table: 'research_artifact',
        source_id: 's1',
        chunk_no: 2,
        title: 'Glaciers',
        text: 'Glacier retreat.',
        start_offset: 400,
        end_offset: 416,
      },
    ];
    sent.length = 0;
    const hits = await index.search('glacier retreat', {
      orgId: 'org-a',
      limit: 7,
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
        path: '/quarry-chunks/_search',
        query: { routing: 'org-a' },
        body: {
          size: 7,
          _source: [
            'source_table',
            'source_id',
            'chunk_no',
            'title',
            'text',
            'start_offset',
            'end_offset',
            'plan_id',
            'tags',
            'created_at',
            'unit',
          ],
          query: {
            bool: {
              must: [{ multi_match: { query: 'glacier retreat', fields: ['title^2', 'text'], type: 'best_fields' } }],
              filter: [
                { term: { org_id: 'org-a' } },
                { term: { source_table: 'research_artifact' } },
                { term: { artifact_type: 'finding' } },
                { term: { plan_id: 'p1' } },
                { term: { tags: 'ice' } },
                { term: { tags: 'climate' } },
                { range: { created_at: { gte: '2026-01-01T00:00:00.000Z', lte: '2026-06-30T23:59:59.999Z' } } },
              ],
            },
          },
        },
      },
    ]);
    sent.length = 0;
    await index.search('glacier', { orgId: 'org-a', limit: 7, filters: { createdUntil: '2026-06-30T00:00:00.000Z' } });
    expect((sent[0]!.body as { query: { bool: { filter: unknown } } }).query.bool.filter).toEqual([
      { term: { org_id: 'org-a' } },
      { range: { created_at: { lte: '2026-06-30T00:00:00.000Z' } } },
    ]);
    expect(hits).toEqual([
      {
        sourceTable: 'research_artifact',
        sourceId: 's1',
        chunkNo: 2,
        title: 'Glaciers',
        text: 'Glacier retreat.',
        start: 400,
        end: 416,
        score: 1.5,
        tags: [],
      },
    ]);
  });

  it('upserts through one routed bulk request: changed chunks indexed, vanished chunks deleted', async () => {
    const source = prepareSource(
      { orgId: 'org-a', sourceTable: 'research_artifact', sourceId: 's1', title: 'T', planId: 'p1', tags: ['x'] },
      'Fresh text.',
    );
    storedBySource['org-a/s1'] = [
      { chunk_no: 0, content_hash: 'old' },
      { chunk_no: 1, content_hash: 'gone' },
    ];
    sent.length = 0;
    const report = await index.upsert(source);
    expect(report).toEqual({ inserted: 0, updated: 1, deleted: 1, unchanged: 0 });
    expect(sent[0]).toEqual({
      method: 'POST',
      path: '/_msearch',
      query: {},
      body: [
        { index: 'quarry-chunks', routing: 'org-a' },
        {
          size: 10_000,
          _source: ['chunk_no', 'content_hash'],
          query: {
            bool: {
              filter: [
                { term: { org_id: 'org-a' } },
                { term: { source_table: 'research_artifact' } },
                { term: { source_id: 's1' } },
              ],
            },
          },
        },
      ],
    });
    expect(sent[1]).toEqual({
      method: 'POST',
      path: '/_bulk',
      query: { refresh: 'wait_for' },
      body: [
        { index: { _index: 'quarry-chunks', _id: 'org-a/research_artifact/s1/0', routing: 'org-a' } },
        {
          org_id: 'org-a',
          source_table: 'research_artifact',
          source_id: 's1',
          chunk_no: 0,
          content_hash: source.chunks[0]!.contentHash,
          plan_id: 'p1',
          artifact_type: null,
          tags: ['x'],
          created_at: null,
          title: 'T',
          text: 'Fresh text.',
          start_offset: 0,
          end_offset: 11,
        },
        { delete: { _index: 'quarry-chunks', _id: 'org-a/research_artifact/s1/1', routing: 'org-a' } },
      ],
    });
  });

  it('sends nothing but the lookup when the content is unchanged', async () => {
    const source = prepareSource(
      { orgId: 'org-a', sourceTable: 'research_artifact', sourceId: 's1', title: 'T' },
      'Same text.',
    );
    storedBySource['org-a/s1'] = [{ chunk_no: 0, content_hash: source.chunks[0]!.contentHash }];
    sent.length = 0;
    expect(await index.upsert(source)).toEqual({ inserted: 0, updated: 0, deleted: 0, unchanged: 1 });
    expect(sent.map((r) => r.path)).toEqual(['/_msearch']);
  });

  it('reads the hashes of many sources in one _msearch: one search per source, each routed by and filtered on its org', async () => {
    storedBySource['org-a/s1'] = [
      { chunk_no: 0, content_hash: 'a0' },
      { chunk_no: 1, content_hash: 'a1' },
    ];
    storedBySource['org-b/s1'] = [{ chunk_no: 0, content_hash: 'b0' }];
    const keys = [
      { orgId: 'org-a', sourceTable: 'research_artifact', sourceId: 's1' },
      { orgId: 'org-b', sourceTable: 'research_artifact', sourceId: 's1' },
      { orgId: 'org-a', sourceTable: 'research_output', sourceId: 'o2' },
      { orgId: 'org-a', sourceTable: 'research_artifact', sourceId: 's1' },
    ];
    sent.length = 0;
    expect(await index.hashesMany(keys)).toEqual(
      new Map([
        [
          sourceKeyString(keys[0]!),
          new Map([
            [0, 'a0'],
            [1, 'a1'],
          ]),
        ],
        [sourceKeyString(keys[1]!), new Map([[0, 'b0']])],
        [sourceKeyString(keys[2]!), new Map()],
      ]),
    );
    const lookup = (orgId: string, sourceTable: string, sourceId: string) => ({
      size: 10_000,
      _source: ['chunk_no', 'content_hash'],
      query: {
        bool: {
          filter: [
            { term: { org_id: orgId } },
            { term: { source_table: sourceTable } },
            { term: { source_id: sourceId } },
          ],
        },
      },
    });
    expect(sent).toEqual([
      {
        method: 'POST',
        path: '/_msearch',
        query: {},
        body: [
          { index: 'quarry-chunks', routing: 'org-a' },
          lookup('org-a', 'research_artifact', 's1'),
          { index: 'quarry-chunks', routing: 'org-b' },
          lookup('org-b', 'research_artifact', 's1'),
          { index: 'quarry-chunks', routing: 'org-a' },
          lookup('org-a', 'research_output', 'o2'),
        ],
      },
    ]);
    sent.length = 0;
    expect(await index.hashesMany([])).toEqual(new Map());
    expect(sent).toEqual([]);
  });

  it('upserts many sources of two orgs through one bulk request, each operation routed by its org', async () => {
    const a = prepareSource(
      { orgId: 'org-a', sourceTable: 'research_artifact', sourceId: 's1', title: 'A' },
      'Text of org A.',
    );
    const b = prepareSource(
      { orgId: 'org-b', sourceTable: 'research_artifact', sourceId: 's1', title: 'B' },
      'Text of org B.',
    );
    const same = prepareSource(
      { orgId: 'org-a', sourceTable: 'research_output', sourceId: 'o2', title: 'Same' },
      'Unchanged.',
    );
    storedBySource['org-a/s1'] = [
      { chunk_no: 0, content_hash: 'old' },
      { chunk_no: 1, content_hash: 'gone' },
      { chunk_no: 2, content_hash: 'gone' },
    ];
    storedBySource['org-a/o2'] = [{ chunk_no: 0, content_hash: same.chunks[0]!.contentHash }];
    sent.length = 0;
    expect(await index.upsertMany([a, b, same])).toEqual([
      { inserted: 0, updated: 1, deleted: 2, unchanged: 0 },
      { inserted: 1, updated: 0, deleted: 0, unchanged: 0 },
      { inserted: 0, updated: 0, deleted: 0, unchanged: 1 },
    ]);
    expect(sent.map((r) => r.path)).toEqual(['/_msearch', '/_bulk']);
    expect((sent[0]!.body as unknown[]).length).toBe(6);
    const doc = (s: typeof a) => ({
      org_id: s.orgId,
      source_table: s.sourceTable,
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
    });
    expect(sent[1]).toEqual({
      method: 'POST',
      path: '/_bulk',
      query: { refresh: 'wait_for' },
      body: [
        { index: { _index: 'quarry-chunks', _id: 'org-a/research_artifact/s1/0', routing: 'org-a' } },
        doc(a),
        { index: { _index: 'quarry-chunks', _id: 'org-b/research_artifact/s1/0', routing: 'org-b' } },
        doc(b),
        { delete: { _index: 'quarry-chunks', _id: 'org-a/research_artifact/s1/1', routing: 'org-a' } },
        { delete: { _index: 'quarry-chunks', _id: 'org-a/research_artifact/s1/2', routing: 'org-a' } },
      ],
    });
    await expect(index.upsertMany([a, { ...a, title: 'again' }])).rejects.toThrow(/more than once/);
  });

  it('deletes a source with a routed delete-by-query filtered by org', async () => {
    sent.length = 0;
    expect(await index.deleteSource({ orgId: 'org-a', sourceTable: 'research_output', sourceId: 'o9' })).toBe(2);
    expect(sent).toEqual([
      {
        method: 'POST',
        path: '/quarry-chunks/_delete_by_query',
        query: { routing: 'org-a', refresh: 'true' },
        body: {
          query: {
            bool: {
              filter: [
                { term: { org_id: 'org-a' } },
                { term: { source_table: 'research_output' } },
                { term: { source_id: 'o9' } },
              ],
            },
          },
        },
      },
    ]);
  });
});

describe('OpenSearch BM25 adapter: an index made before documents carried created_at', () => {
  it('gets the created_at and unit mappings added (the mapping is strict), and nothing is recreated', async () => {
    const replies = engineReplies(
      () => [],
      () => ({}),
    );
    const mock = mockClient((req) => {
      if (req.method === 'HEAD' && req.path === '/quarry-chunks') return { status: 200 };
      if (req.method === 'POST' && req.path === '/quarry-chunks/_mapping')
        return { status: 200, body: { acknowledged: true } };
      return replies(req);
    });
    await openOpenSearchBm25Index({ client: mock.client });
    expect(mock.sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /_index_template/quarry-chunks-template',
      'HEAD /quarry-chunks',
      'POST /quarry-chunks/_mapping',
    ]);
    expect(mock.sent[2]!.body).toEqual({
      properties: { created_at: { type: 'date' }, unit: { type: 'integer', index: false } },
    });
  });
});
