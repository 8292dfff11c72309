import { createHash } from 'node:crypto';
import { QdrantClient } from '@qdrant/js-client-rest';
import {
  carriedVectors,
  checkVectors,
  chunkDocument,
  chunkHitOf,
  chunkId,
  groupKeys,
  planUpsertMany,
  requestVectors,
  sourceKeyString,
} from '../core/source.js';
import type {
  ChunkFilters,
  ChunkHit,
  EmbedderIdentity,
  SearchScope,
  SourceKey,
  StoredVector,
  VectorIndex,
} from '../types.js';
import { EmbedderMismatchError } from '../types.js';

/**
 * Vector index on Qdrant. One collection (default `quarry_chunks`), cosine distance, with a
 * keyword payload index on `org_id` marked `is_tenant` (Qdrant co-locates each tenant's points
 * and plans per-tenant searches), plus keyword indexes on every filter field and a datetime index
 * on `created_at`. Every search, scroll and delete carries the org in its payload filter,
 * evaluated inside the HNSW search (filterable HNSW) — never applied to results afterwards. The
 * embedder identity is stored in the collection metadata; opening with another one fails.
 */
export interface QdrantVectorOptions {
  client: QdrantClient;
  embedder: EmbedderIdentity;
  collection?: string;
}

export function buildQdrantClient(url: string, apiKey?: string): QdrantClient {
  return new QdrantClient({ url, ...(apiKey ? { apiKey } : {}), checkCompatibility: false });
}

/** Qdrant point ids must be UUIDs or integers: a name-based UUID (v5 layout) of the chunk id. */
export function pointId(key: SourceKey, chunkNo: number): string {
  const h = createHash('sha256').update(chunkId(key, chunkNo)).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

type Condition = { key: string; match: { value: string } };
type DateRange = { key: string; range: { gte?: string; lte?: string } };

/**
 * Payload filter: the org first, then the optional filters (one condition per tag = all of them;
 * the date bounds as one datetime range, which a point without created_at never matches).
 */
function qdrantFilter(orgId: string, filters: ChunkFilters = {}): { must: (Condition | DateRange)[] } {
  const must: (Condition | DateRange)[] = [{ key: 'org_id', match: { value: orgId } }];
  if (filters.sourceTable !== undefined) must.push({ key: 'source_table', match: { value: filters.sourceTable } });
  if (filters.artifactType !== undefined) must.push({ key: 'artifact_type', match: { value: filters.artifactType } });
  if (filters.planId !== undefined) must.push({ key: 'plan_id', match: { value: filters.planId } });
  for (const tag of filters.tags ?? []) must.push({ key: 'tags', match: { value: tag } });
  if (filters.createdSince !== undefined || filters.createdUntil !== undefined)
    must.push({
      key: 'created_at',
      range: {
        ...(filters.createdSince !== undefined ? { gte: filters.createdSince } : {}),
        ...(filters.createdUntil !== undefined ? { lte: filters.createdUntil } : {}),
      },
    });
  return { must };
}

type AnyMatch = { key: string; match: { any: string[] } };

/** Payload filter of many sources: one `should` branch per (org, table), each carrying its org. */
function qdrantSourcesFilter(keys: readonly SourceKey[]): { should: { must: (Condition | AnyMatch)[] }[] } {
  return {
    should: groupKeys(keys).map((g) => ({
      must: [
        { key: 'org_id', match: { value: g.orgId } },
        { key: 'source_table', match: { value: g.sourceTable } },
        { key: 'source_id', match: { any: g.sourceIds } },
      ],
    })),
  };
}

/** Points per scroll page (hash reads only: small), and per upsert request (keeps each well under Qdrant's 32 MB body limit). */
const SCROLL_PAGE = 1024;
const UPSERT_POINTS = 256;

const FILTER_FIELDS = ['source_table', 'source_id', 'plan_id', 'artifact_type', 'tags'];
/** The date field's payload index: Qdrant parses RFC 3339 strings and ranges over them. */
const CREATED_AT_INDEX = { field_name: 'created_at', field_schema: 'datetime', wait: true } as const;

/** A stored point as a scroll reads it back (text and vector only when asked for). */
interface ScrolledPoint {
  id: string | number;
  key: string;
  chunkNo: number;
  hash: string;
  text?: string;
  vector?: number[];
}

export async function openQdrantVectorIndex(options: QdrantVectorOptions): Promise<VectorIndex> {
  const { client, embedder } = options;
  const collection = options.collection ?? 'quarry_chunks';

  if (!(await client.collectionExists(collection)).exists) {
    // Through the raw API: the convenience `createCollection` (client 1.18) drops `metadata`.
    await client.api().createCollection({
      collection_name: collection,
      vectors: { size: embedder.dimension, distance: 'Cosine' },
      metadata: { quarry_embedder: embedder.id, quarry_dimension: embedder.dimension },
    });
    await client.createPayloadIndex(collection, {
      field_name: 'org_id',
      field_schema: { type: 'keyword', is_tenant: true },
      wait: true,
    });
    for (const field of FILTER_FIELDS)
      await client.createPayloadIndex(collection, { field_name: field, field_schema: 'keyword', wait: true });
    await client.createPayloadIndex(collection, CREATED_AT_INDEX);
  } else {
    const info = await client.getCollection(collection);
    const vectors = info.config.params.vectors as { size?: number } | undefined;
    const meta = (info.config as { metadata?: Record<string, unknown> | null }).metadata ?? {};
    const stored: EmbedderIdentity = {
      id: typeof meta.quarry_embedder === 'string' ? meta.quarry_embedder : embedder.id, // servers without collection metadata: size check only
      dimension: Number(vectors?.size ?? 0),
    };
    if (stored.id !== embedder.id || stored.dimension !== embedder.dimension)
      throw new EmbedderMismatchError(stored, embedder);
    // A collection made before date ranges were filterable gains the created_at index (additive).
    if (!info.payload_schema?.created_at) await client.createPayloadIndex(collection, CREATED_AT_INDEX);
  }

  /**
   * Every stored point of the given sources, in as few scroll pages as the filter allows; with
   * `withText`, each point's text and vector too (storedVectors).
   */
  const scrollSources = async (keys: readonly SourceKey[], withText = false): Promise<ScrolledPoint[]> => {
    const out: ScrolledPoint[] = [];
    if (keys.length === 0) return out;
    let offset: string | number | undefined;
    do {
      const page = await client.scroll(collection, {
        filter: qdrantSourcesFilter(keys),
        limit: SCROLL_PAGE,
        with_payload: withText
          ? ['org_id', 'source_table', 'source_id', 'chunk_no', 'content_hash', 'text']
          : ['org_id', 'source_table', 'source_id', 'chunk_no', 'content_hash'],
        with_vector: withText,
        ...(offset !== undefined ? { offset } : {}),
      });
      for (const p of page.points) {
        const s = p.payload ?? {};
        const key = sourceKeyString({
          orgId: String(s.org_id),
          sourceTable: String(s.source_table),
          sourceId: String(s.source_id),
        });
        out.push({
          id: p.id,
          key,
          chunkNo: Number(s.chunk_no),
          hash: String(s.content_hash),
          ...(withText ? { text: String(s.text), vector: p.vector as number[] } : {}),
        });
      }
      const next = page.next_page_offset;
      offset = typeof next === 'string' || typeof next === 'number' ? next : undefined;
    } while (offset !== undefined);
    return out;
  };
  const hashesMany = async (keys: readonly SourceKey[]): Promise<Map<string, Map<number, string>>> => {
    const out = new Map(keys.map((k) => [sourceKeyString(k), new Map<number, string>()]));
    for (const p of await scrollSources(keys)) out.get(p.key)?.set(p.chunkNo, p.hash);
    return out;
  };

  /** One scroll, then the changed points in upsert requests of UPSERT_POINTS points, then one delete by point id. */
  const upsertMany: VectorIndex['upsertMany'] = async (sources, vectors) => {
    const plan = planUpsertMany(await hashesMany(sources), sources);
    const got = await requestVectors(
      vectors,
      plan.writes.map((w) => w.chunk),
      embedder,
    );
    const points = plan.writes.map(({ source, chunk }, i) => ({
      id: pointId(source, chunk.chunkNo),
      vector: got[i]!,
      payload: chunkDocument(source, chunk),
    }));
    for (let i = 0; i < points.length; i += UPSERT_POINTS)
      await client.upsert(collection, { wait: true, points: points.slice(i, i + UPSERT_POINTS) });
    const gone = plan.removes.flatMap(({ source, chunkNos }) => chunkNos.map((no) => pointId(source, no)));
    if (gone.length > 0) await client.delete(collection, { wait: true, points: gone });
    return plan.reports;
  };

  return {
    embedder: Object.freeze({ ...embedder }),
    hashesMany,
    hashes: async (key) => (await hashesMany([key])).get(sourceKeyString(key))!,
    async storedVectors(keys) {
      const out = new Map(keys.map((k) => [sourceKeyString(k), new Map<number, StoredVector>()]));
      for (const p of await scrollSources(keys, true))
        out.get(p.key)?.set(p.chunkNo, { text: p.text ?? '', vector: p.vector ?? [] });
      return out;
    },
    upsertMany,
    async upsert(source) {
      checkVectors(source, embedder);
      return (await upsertMany([source], carriedVectors(source)))[0]!;
    },
    async deleteSource(key: SourceKey): Promise<number> {
      const points = await scrollSources([key]);
      if (points.length > 0) await client.delete(collection, { wait: true, points: points.map((p) => p.id) });
      return points.length;
    },
    async search(vector: number[], scope: SearchScope): Promise<ChunkHit[]> {
      if (vector.length !== embedder.dimension)
        throw new EmbedderMismatchError(embedder, { id: 'query vector', dimension: vector.length });
      if (!vector.some((x) => x !== 0)) return [];
      const res = await client.query(collection, {
        query: vector,
        filter: qdrantFilter(scope.orgId, scope.filters),
        limit: scope.limit,
        with_payload: true,
      });
      return res.points.map((p) => chunkHitOf(p.payload ?? {}, p.score));
    },
    async close(): Promise<void> {},
  };
}
