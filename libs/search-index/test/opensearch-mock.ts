import type { ClientRequest, IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { Client, Connection } from '@opensearch-project/opensearch';

// The OpenSearch adapter's tests run the real client against a recorded transport: what it sent,
// and engine replies in the shape OpenSearch 2.x returns them.

/** One request as the adapter sent it through the client's transport. */
export interface Sent {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
}

export type Reply = { status: number; body?: unknown };

/**
 * The client's transport hook: a `Connection` subclass that records every request and answers
 * from `respond` — the real client code (serialisation, NDJSON bulk bodies, routing query
 * strings, response parsing) runs, only the socket is replaced.
 */
export function mockClient(respond: (req: Sent) => Reply): { client: Client; sent: Sent[] } {
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
export const ACK = { acknowledged: true };
export const searchReply = (hits: { id: string; score: number; source: Record<string, unknown> }[]) => ({
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
export const bulkReply = (items: object[], errors = false) => ({ took: 7, errors, items });
export const msearchReply = (responses: object[]) => ({
  took: 4,
  responses: responses.map((r) => ({ ...r, status: 'error' in r ? 404 : 200 })),
});
/** The source_id term of a per-source hash lookup (the mock answers each search from `stored` by it). */
const sourceIdOf = (search: { query: { bool: { filter: { term: Record<string, string> }[] } } }) =>
  search.query.bool.filter.find((f) => 'source_id' in f.term)!.term.source_id!;

/**
 * An engine that answers every request of the adapter's normal work: searches from `stored()`,
 * hash lookups from `storedBySource()` (keyed `<routing>/<source_id>`), bulk writes and
 * delete-by-query as accepted. Anything else is a 400.
 */
export function engineReplies(
  stored: () => Record<string, unknown>[],
  storedBySource: () => Record<string, Record<string, unknown>[]>,
): (req: Sent) => Reply {
  return (req) => {
    if (req.path === '/_index_template/quarry-chunks-template') return { status: 200, body: ACK };
    if (req.method === 'HEAD' && req.path === '/quarry-chunks') return { status: 404 };
    if (req.method === 'PUT' && req.path === '/quarry-chunks')
      return { status: 200, body: { ...ACK, shards_acknowledged: true, index: 'quarry-chunks' } };
    if (req.path === '/quarry-chunks/_search') {
      return {
        status: 200,
        body: searchReply(stored().map((s, i) => ({ id: `x${i}`, score: 1.5 - i * 0.1, source: s }))),
      };
    }
    if (req.path === '/_msearch') {
      const lines = req.body as Record<string, unknown>[];
      const responses = [];
      for (let i = 0; i < lines.length; i += 2) {
        const docs =
          storedBySource()[
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
  };
}
