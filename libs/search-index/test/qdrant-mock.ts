import { createServer, type Server } from 'node:http';

/** One request as the Qdrant client sent it. */
export interface Sent {
  method: string;
  path: string;
  body: unknown;
}

/** How the recording server answers a request: a Qdrant `result` (or error text) and its status. */
export type Responder = (req: Sent) => { status: number; result: unknown };

/**
 * The Qdrant JS client builds its own undici dispatcher per client (no injectable fetch or
 * dispatcher), so its transport is exercised against a recording HTTP server on 127.0.0.1:0:
 * the real client serialises the requests, the samples below are Qdrant 1.x response bodies.
 * `handle` records each request and answers it.
 */
export async function recordingServer(handle: Responder): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      const entry: Sent = { method: req.method!, path: req.url!, body: raw ? JSON.parse(raw) : undefined };
      const { status, result } = handle(entry);
      const body =
        status < 300 ? { result, status: 'ok', time: 0.000412 } : { status: { error: String(result) }, time: 0.0001 };
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${addr.port}` };
}

export const IDENTITY = { id: 'local-ngram-v1', dimension: 4 };
export const collectionInfo = (size: number, metadata?: object) => ({
  status: 'green',
  optimizer_status: 'ok',
  indexed_vectors_count: 0,
  points_count: 0,
  segments_count: 2,
  config: {
    params: {
      vectors: { size, distance: 'Cosine' },
      shard_number: 1,
      replication_factor: 1,
      write_consistency_factor: 1,
      on_disk_payload: true,
    },
    hnsw_config: { m: 16, ef_construct: 100, full_scan_threshold: 10000, max_indexing_threads: 0, on_disk: false },
    optimizer_config: {
      deleted_threshold: 0.2,
      vacuum_min_vector_number: 1000,
      default_segment_number: 0,
      flush_interval_sec: 5,
    },
    wal_config: { wal_capacity_mb: 32, wal_segments_ahead: 0 },
    ...(metadata ? { metadata } : {}),
  },
  payload_schema: { org_id: { data_type: 'keyword', params: { type: 'keyword', is_tenant: true }, points: 0 } },
});

export const keyPayload = (key: { orgId: string; sourceTable: string; sourceId: string }) => ({
  org_id: key.orgId,
  source_table: key.sourceTable,
  source_id: key.sourceId,
});

type StoredPoint = { id: string; payload: Record<string, unknown>; vector?: number[] };

/**
 * A Qdrant that answers the adapter's normal work: a fresh collection, scroll pages from
 * `storedPoints()` then `laterPages()` in turn, accepted writes, and one search hit.
 * Anything else is a 400.
 */
export function qdrantReplies(storedPoints: () => StoredPoint[], laterPages: () => StoredPoint[][]): Responder {
  return (req) => {
    if (req.path === '/collections/quarry_chunks/exists') return { status: 200, result: { exists: false } };
    if (req.method === 'PUT' && req.path === '/collections/quarry_chunks') return { status: 200, result: true };
    if (req.path.startsWith('/collections/quarry_chunks/index'))
      return { status: 200, result: { operation_id: 1, status: 'completed' } };
    if (req.path === '/collections/quarry_chunks/points/scroll') {
      const offset = (req.body as { offset?: number }).offset ?? 0;
      const points = offset === 0 ? storedPoints() : laterPages()[offset - 1]!;
      return { status: 200, result: { points, next_page_offset: offset < laterPages().length ? offset + 1 : null } };
    }
    if (
      req.path.startsWith('/collections/quarry_chunks/points?') ||
      req.path.startsWith('/collections/quarry_chunks/points/delete')
    ) {
      return { status: 200, result: { operation_id: 7, status: 'completed' } };
    }
    if (req.path === '/collections/quarry_chunks/points/query') {
      return {
        status: 200,
        result: {
          points: [
            {
              id: '1f0c7a4e-2b8d-5c3e-9a1f-0d2e3c4b5a69',
              version: 3,
              score: 0.8731,
              payload: {
                org_id: 'org-a',
                source_table: 'research_artifact',
                source_id: 's1',
                chunk_no: 1,
                content_hash: 'h',
                plan_id: null,
                artifact_type: 'finding',
                tags: ['ice'],
                title: 'Glaciers',
                text: 'Glacier retreat.',
                start_offset: 300,
                end_offset: 316,
              },
            },
          ],
        },
      };
    }
    return { status: 400, result: `unexpected ${req.method} ${req.path}` };
  };
}
