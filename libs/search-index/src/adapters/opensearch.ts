import { Client } from '@opensearch-project/opensearch';
import {
  CHUNK_HIT_FIELDS,
  chunkDocument,
  chunkHitOf,
  chunkId,
  groupKeys,
  planUpsertMany,
  sourceKeyString,
} from '../core/source.js';
import type {
  Bm25Index,
  ChunkFilters,
  ChunkHit,
  IndexedSource,
  SearchScope,
  SourceKey,
  UpsertReport,
} from '../types.js';

/**
 * BM25 index on OpenSearch. One index (default `quarry-chunks`) shaped by an index template:
 * English analyzer on `title` and `text`, keywords for every filter field, and `_routing`
 * REQUIRED — every document and every request is routed by `org_id`, so one tenant's chunks live
 * on one shard and a query touches only that shard. Isolation does not rely on routing (several
 * orgs share a shard): every query also carries `term org_id` in `bool.filter`, evaluated inside
 * the engine before scoring and before `size`.
 */
export interface OpenSearchBm25Options {
  client: Client;
  /** Index name; the template matches `<index>*`. */
  index?: string;
  /** Make writes visible to search before returning (`refresh=wait_for`); tests and freshness-sensitive callers. */
  refresh?: boolean;
  shards?: number;
  replicas?: number;
}

export function buildOpenSearchClient(url: string): Client {
  return new Client({ node: url });
}

/** When the source was stored (ISO 8601); null for documents indexed before it was recorded. */
const CREATED_AT = { type: 'date' } as const;

/** The page (slide, sheet) of a source document a chunk lies on; null for other sources. */
const UNIT = { type: 'integer', index: false } as const;

/** The index template body (exported so its exact shape is tested and reviewable). */
function openSearchIndexTemplate(index: string, shards = 1, replicas = 1): Record<string, unknown> {
  const keyword = { type: 'keyword' };
  return {
    index_patterns: [`${index}*`],
    template: {
      settings: {
        number_of_shards: shards,
        number_of_replicas: replicas,
        analysis: { analyzer: { default: { type: 'english' } } },
      },
      mappings: {
        _routing: { required: true },
        dynamic: 'strict',
        properties: {
          org_id: keyword,
          source_table: keyword,
          source_id: keyword,
          chunk_no: { type: 'integer' },
          content_hash: keyword,
          plan_id: keyword,
          artifact_type: keyword,
          tags: keyword,
          created_at: CREATED_AT,
          title: { type: 'text', analyzer: 'english' },
          text: { type: 'text', analyzer: 'english' },
          start_offset: { type: 'integer', index: false },
          end_offset: { type: 'integer', index: false },
          unit: UNIT,
        },
      },
    },
  };
}

/**
 * `bool.filter` clauses: the org first, then the optional filters (tags: one term per tag = all of
 * them; the date bounds as one range on the `date` field, which a document without it never matches).
 */
function openSearchFilters(orgId: string, filters: ChunkFilters = {}): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [{ term: { org_id: orgId } }];
  if (filters.sourceTable !== undefined) out.push({ term: { source_table: filters.sourceTable } });
  if (filters.artifactType !== undefined) out.push({ term: { artifact_type: filters.artifactType } });
  if (filters.planId !== undefined) out.push({ term: { plan_id: filters.planId } });
  for (const tag of filters.tags ?? []) out.push({ term: { tags: tag } });
  const createdAt = {
    ...(filters.createdSince !== undefined ? { gte: filters.createdSince } : {}),
    ...(filters.createdUntil !== undefined ? { lte: filters.createdUntil } : {}),
  };
  if (Object.keys(createdAt).length > 0) out.push({ range: { created_at: createdAt } });
  return out;
}

function sourceFilter(key: SourceKey): Record<string, unknown> {
  return {
    bool: {
      filter: [
        { term: { org_id: key.orgId } },
        { term: { source_table: key.sourceTable } },
        { term: { source_id: key.sourceId } },
      ],
    },
  };
}

interface SearchBody {
  hits: { hits: { _score: number | null; _source?: Record<string, unknown> }[] };
}

export async function openOpenSearchBm25Index(options: OpenSearchBm25Options): Promise<Bm25Index> {
  const { client } = options;
  const index = options.index ?? 'quarry-chunks';
  const refresh = options.refresh ? ('wait_for' as const) : undefined;
  await client.indices.putIndexTemplate({
    name: `${index}-template`,
    body: openSearchIndexTemplate(index, options.shards, options.replicas),
  });
  const exists = await client.indices.exists({ index });
  if (!exists.body) await client.indices.create({ index });
  // An index made before documents carried created_at gets the field's mapping (additive; the
  // mapping is strict, so a document with an unmapped field would be refused).
  // The same for `unit` (a document's page), added later still.
  else await client.indices.putMapping({ index, body: { properties: { created_at: CREATED_AT, unit: UNIT } } });

  /**
   * One `_msearch` with one search per source, each routed by and filtered on its org: exact per
   * source (no shared `size` cap across a batch) in a single round trip.
   */
  const hashesMany = async (keys: readonly SourceKey[]): Promise<Map<string, Map<number, string>>> => {
    const out = new Map(keys.map((k) => [sourceKeyString(k), new Map<number, string>()]));
    const distinct = groupKeys(keys).flatMap((g) =>
      g.sourceIds.map((sourceId) => ({ orgId: g.orgId, sourceTable: g.sourceTable, sourceId })),
    );
    if (distinct.length === 0) return out;
    const res = await client.msearch({
      body: distinct.flatMap((key) => [
        { index, routing: key.orgId },
        { size: 10_000, _source: ['chunk_no', 'content_hash'], query: sourceFilter(key) },
      ]),
    });
    const body = res.body as unknown as { responses: (SearchBody & { error?: { type: string; reason: string } })[] };
    body.responses.forEach((r, i) => {
      if (r.error) throw new Error(`OpenSearch hash lookup failed: ${r.error.type}: ${r.error.reason}`);
      const hashes = out.get(sourceKeyString(distinct[i]!))!;
      for (const h of r.hits.hits) hashes.set(Number(h._source?.chunk_no), String(h._source?.content_hash));
    });
    return out;
  };

  /** Every changed chunk indexed and every vanished one deleted in one routed `_bulk`. */
  const upsertMany = async (sources: readonly IndexedSource[]): Promise<UpsertReport[]> => {
    const plan = planUpsertMany(await hashesMany(sources), sources);
    const ops: Record<string, unknown>[] = [];
    for (const { source, chunk } of plan.writes) {
      ops.push({ index: { _index: index, _id: chunkId(source, chunk.chunkNo), routing: source.orgId } });
      ops.push(chunkDocument(source, chunk));
    }
    for (const { source, chunkNos } of plan.removes) {
      for (const no of chunkNos)
        ops.push({ delete: { _index: index, _id: chunkId(source, no), routing: source.orgId } });
    }
    if (ops.length > 0) {
      const res = await client.bulk({ body: ops, ...(refresh ? { refresh } : {}) });
      const body = res.body as unknown as {
        errors: boolean;
        items: Record<string, { status: number; error?: { type: string; reason: string } }>[];
      };
      if (body.errors) {
        const failed = body.items.map((i) => Object.values(i)[0]!).find((r) => r.error && r.status !== 404);
        if (failed) throw new Error(`OpenSearch bulk upsert failed: ${failed.error!.type}: ${failed.error!.reason}`);
      }
    }
    return plan.reports;
  };

  return {
    hashesMany,
    hashes: async (key) => (await hashesMany([key])).get(sourceKeyString(key))!,
    upsertMany,
    upsert: async (source) => (await upsertMany([source]))[0]!,
    async deleteSource(key: SourceKey): Promise<number> {
      const res = await client.deleteByQuery({
        index,
        routing: key.orgId,
        body: { query: sourceFilter(key) },
        refresh: Boolean(refresh),
      });
      return Number((res.body as unknown as { deleted?: number }).deleted ?? 0);
    },
    async search(query: string, scope: SearchScope): Promise<ChunkHit[]> {
      if (query.trim() === '') return [];
      const res = await client.search({
        index,
        routing: scope.orgId,
        body: {
          size: scope.limit,
          _source: [...CHUNK_HIT_FIELDS],
          query: {
            bool: {
              must: [{ multi_match: { query, fields: ['title^2', 'text'], type: 'best_fields' } }],
              filter: openSearchFilters(scope.orgId, scope.filters),
            },
          },
        },
      });
      const body = res.body as unknown as SearchBody;
      return body.hits.hits.map((h) => chunkHitOf(h._source ?? {}, Number(h._score ?? 0)));
    },
    async close(): Promise<void> {
      await client.close();
    },
  };
}
