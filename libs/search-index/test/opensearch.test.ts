import type { ClientRequest, IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { Client, Connection } from '@opensearch-project/opensearch';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  openLanceVectorIndex,
  openOpenSearchBm25Index,
  prepareSource,
  sourceKeyString,
  type Bm25Index,
} from '../src/index.js';
import { indexContract } from './contract.js';

/** One request as the adapter sent it through the client's transport. */
interface Sent {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
}

type Reply = { status: number; body?: unknown };

/**
 * The client's transport hook: a `Connection` subclass that records every request and answers
 * from `respond` — the real client code (serialisation, NDJSON bulk bodies, routing query
 * strings, response parsing) runs, only the socket is replaced.
 */
function mockClient(respond: (req: Sent) => Reply): { client: Client; sent: Sent[] } {
  const sent: Sent[] = [];
  class RecordingConnection extends Connection {
    override request(
      params: Parameters<Connection['request']>[0],
      callback: Parameters<Connection['request']>[1],
    ): ReturnType<Connection['request']> {
      const raw = params.body === undefined || params.body === null ? '' : String(params.body);
      const path = params.path ?? '';
      const body =
        raw === ''
          ? undefined
          : /\/_(bulk|msearch)$/.test(path)
            ? raw
                .trim()
                .split('\n')
                .map((l) => JSON.parse(l))
            : JSON.parse(raw);
      const req: Sent = {
        method: params.method ?? 'GET',
        path,
        query: Object.fromEntries(new URLSearchParams(params.querystring ?? '')),
        body,
      };
      sent.push(req);
      const reply = respond(req);
      const payload = reply.body === undefined ? '' : JSON.stringify(reply.body);
      const stream = Object.assign(new PassThrough(), {
        statusCode: reply.status,
        headers: {
          'content-type': 'application/json; charset=UTF-8',
          'content-length': String(Buffer.byteLength(payload)),
        },
      });
      process.nextTick(() => {
        callback(null, stream as unknown as IncomingMessage);
        stream.end(payload);
      });
      return { abort: () => {} } as unknown as ClientRequest;
    }
  }
  const client = new Client({
    node: 'http://opensearch.invalid:9200',
    Connection: RecordingConnection as unknown as typeof Connection,
  });
  return { client, sent };
}

// Response samples in the shape OpenSearch 2.x returns them.
const ACK = { acknowledged: true };
const searchReply = (hits: { id: string; score: number; source: Record<string, unknown> }[]) => ({
  took: 3,
  timed_out: false,
  _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
  hits: {
    total: { value: hits.length, relation: 'eq' },
    max_score: hits[0]?.score ?? null,
    hits: hits.map((h) => ({
      _index: 'quarry-chunks',
      _id: h.id,
      _score: h.score,
      _routing: 'org-a',
      _source: h.source,
    })),
  },
});
const bulkReply = (items: object[], errors = false) => ({ took: 7, errors, items });
const msearchReply = (responses: object[]) => ({
  took: 4,
  responses: responses.map((r) => ({ ...r, status: 'error' in r ? 404 : 200 })),
});
/** The source_id term of a per-source hash lookup (the mock answers each search from `stored` by it). */
const sourceIdOf = (search: { query: { bool: { filter: { term: Record<string, string> }[] } } }) =>
  search.query.bool.filter.find((f) => 'source_id' in f.term)!.term.source_id!;

describe('OpenSearch BM25 adapter: exact requests (offline)', () => {
  let stored: Record<string, unknown>[];
  /** What the engine holds per `<routing>/<source_id>`, for hash lookups. */
  let storedBySource: Record<string, Record<string, unknown>[]>;
  let sent: Sent[];
  let index: Bm25Index;

  beforeEach(async () => {
    stored = [];
    storedBySource = {};
    const mock = mockClient((req) => {
      if (req.path === '/_index_template/quarry-chunks-template') return { status: 200, body: ACK };
      if (req.method === 'HEAD' && req.path === '/quarry-chunks') return { status: 404 };
      if (req.method === 'PUT' && req.path === '/quarry-chunks')
        return { status: 200, body: { ...ACK, shards_acknowledged: true, index: 'quarry-chunks' } };
      if (req.path === '/quarry-chunks/_search') {
        return {
          status: 200,
          body: searchReply(stored.map((s, i) => ({ id: `x${i}`, score: 1.5 - i * 0.1, source: s }))),
        };
      }
      if (req.path === '/_msearch') {
        const lines = req.body as Record<string, unknown>[];
        const responses = [];
        for (let i = 0; i < lines.length; i += 2) {
          const docs =
            storedBySource[
              `${String(lines[i]!.routing)}/${sourceIdOf(lines[i + 1] as Parameters<typeof sourceIdOf>[0])}`
            ] ?? [];
          responses.push(searchReply(docs.map((d, n) => ({ id: `x${n}`, score: 0, source: d }))));
        }
        return { status: 200, body: msearchReply(responses) };
      }
      if (req.path === '/_bulk') {
        const items = (req.body as Record<string, { _id: string }>[])
          .filter((l) => 'index' in l || 'delete' in l)
          .map((l) =>
            'index' in l
              ? {
                  index: {
                    _index: 'quarry-chunks',
                    _id: l.index!._id,
                    _version: 1,
                    result: 'created',
                    _shards: { total: 2, successful: 1, failed: 0 },
                    _seq_no: 0,
                    _primary_term: 1,
                    status: 201,
                  },
                }
              : {
                  delete: {
                    _index: 'quarry-chunks',
                    _id: l.delete!._id,
                    _version: 2,
                    result: 'not_found',
                    status: 404,
                  },
                },
          );
        return { status: 200, body: bulkReply(items) };
      }
      if (req.path === '/quarry-chunks/_delete_by_query') {
        return {
          status: 200,
          body: {
            took: 12,
            timed_out: false,
            total: 2,
            deleted: 2,
            batches: 1,
            version_conflicts: 0,
            noops: 0,
            retries: { bulk: 0, search: 0 },
            failures: [],
          },
        };
      }
      return { status: 400, body: { error: { type: 'unexpected', reason: `${req.method} ${req.path}` }, status: 400 } };
    });
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

  it('searches with the org and every filter in bool.filter, routed by org', async () => {
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
      filters: { sourceTable: 'research_artifact', artifactType: 'finding', planId: 'p1', tags: ['ice', 'climate'] },
    });
    expect(sent).toEqual([
      {
        method: 'POST',
        path: '/quarry-chunks/_search',
        query: { routing: 'org-a' },
        body: {
          size: 7,
          _source: ['source_table', 'source_id', 'chunk_no', 'title', 'text', 'start_offset', 'end_offset'],
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
              ],
            },
          },
        },
      },
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

describe('OpenSearch BM25 adapter: failures', () => {
  it('throws with the engine’s reason when a hash lookup of the _msearch fails', async () => {
    const { client } = mockClient((req) => {
      if (req.method === 'HEAD') return { status: 200 };
      if (req.path === '/_msearch') {
        return {
          status: 200,
          body: msearchReply([
            searchReply([]),
            { error: { root_cause: [], type: 'search_phase_execution_exception', reason: 'all shards failed' } },
          ]),
        };
      }
      return { status: 200, body: ACK };
    });
    const index = await openOpenSearchBm25Index({ client });
    const key = { orgId: 'org-a', sourceTable: 't', sourceId: 's' };
    await expect(index.hashesMany([key, { ...key, sourceId: 'other' }])).rejects.toThrow(
      'search_phase_execution_exception: all shards failed',
    );
  });

  it('throws with the engine’s reason when an item fails', async () => {
    const { client } = mockClient((req) => {
      if (req.method === 'HEAD') return { status: 200 };
      if (req.path === '/_msearch') return { status: 200, body: msearchReply([searchReply([])]) };
      if (req.path === '/_bulk') {
        return {
          status: 200,
          body: bulkReply(
            [
              {
                index: {
                  _index: 'quarry-chunks',
                  _id: 'a',
                  status: 400,
                  error: { type: 'strict_dynamic_mapping_exception', reason: 'mapping set to strict' },
                },
              },
            ],
            true,
          ),
        };
      }
      return { status: 200, body: ACK };
    });
    const index = await openOpenSearchBm25Index({ client });
    const source = prepareSource({ orgId: 'org-a', sourceTable: 't', sourceId: 's', title: 'T' }, 'x');
    await expect(index.upsert(source)).rejects.toThrow('strict_dynamic_mapping_exception: mapping set to strict');
  });
});

const OPENSEARCH_URL = process.env.OPENSEARCH_URL;
if (OPENSEARCH_URL) {
  const name = `quarry-test-${process.pid}-${Date.now()}`;
  const dir = mkdtempSync(join(tmpdir(), 'quarry-search-os-'));
  // OpenSearch is the BM25 leg; the vector leg of the pair is the embedded one.
  indexContract(`OpenSearch at ${OPENSEARCH_URL} (+ LanceDB vectors)`, {
    bm25: () =>
      openOpenSearchBm25Index({
        client: new Client({ node: OPENSEARCH_URL }),
        index: name,
        refresh: true,
        replicas: 0,
      }),
    vectors: (embedder) => openLanceVectorIndex({ dir, embedder }),
    cleanup: async () => {
      rmSync(dir, { recursive: true, force: true });
      const c = new Client({ node: OPENSEARCH_URL });
      await c.indices.delete({ index: name });
      await c.indices.deleteIndexTemplate({ name: `${name}-template` });
      await c.close();
    },
  });
} else {
  describe.skip('index contract: OpenSearch — skipped because OPENSEARCH_URL is not set', () => {
    it('runs the shared contract against a real OpenSearch', () => {});
  });
}
