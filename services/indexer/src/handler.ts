import { createHash } from 'node:crypto';
import type { AnyDb } from '@quarry/db';
import type { ContentCreatedV1, ContentDeletedV1, DeliveredEvent } from '@quarry/events';
import {
  EmbedderMismatchError,
  planUpsertMany,
  prepareSource,
  sourceKeyString,
  type ChunkOptions,
  type ChunkVectors,
  type IndexedChunk,
  type IndexedSource,
  type SearchBackends,
  type SourceMeta,
  type VectorIndex,
} from '@quarry/search-index';
import type { Logger } from '@quarry/telemetry';
import { latestPerSource, sourceKeyOf, verdict, versionOf } from './core/versions.js';
import { readRecorded, recordIndexed, type IndexedSourceRow } from './store.js';

/** What one batch did. Every delivered event is counted in exactly one of indexed / deleted / unchanged / stale. */
export interface IndexReport {
  /** Events delivered in the batch. */
  events: number;
  /** Deletions applied: every chunk of the source removed from both indexes and a tombstone recorded. */
  deleted: number;
  /** Newer than what was recorded for their source: now in both indexes and recorded. */
  indexed: number;
  /** The recorded version itself, delivered again: the indexes were checked against it (and repaired if needed; for a deletion, the source removed again). */
  unchanged: number;
  /** Older than the recorded version, or superseded by (or a copy of) another event of the same batch: skipped. */
  stale: number;
  /** Chunks inserted or replaced (per chunk, the larger count of the two indexes). */
  chunksWritten: number;
  /** Chunks removed because the source lost them (shorter or empty text). */
  chunksDeleted: number;
  /** Chunk texts sent to the embedder: only chunks whose content hash the vector index lacks. */
  chunksEmbedded: number;
}

export interface IndexHandlerDeps {
  /**
   * A role that is a member of quarry_event_consumer (grantEventConsumer) and may read and write
   * `indexer.indexed_sources`; row-level security applies (every access is per tenant).
   */
  db: AnyDb;
  backends: Pick<SearchBackends, 'bm25' | 'vectors' | 'embedder'>;
  logger: Logger;
  /** Chunk sizes (default: @quarry/search's DEFAULT_CHUNK_OPTIONS). Must not change without a reindex. */
  chunkOptions?: Partial<ChunkOptions>;
}

export type IndexHandler = (batch: readonly DeliveredEvent[]) => Promise<IndexReport>;

interface Work {
  event: ContentCreatedV1;
  recheck: boolean;
  /** Whether a version of this source is recorded (so the indexes may hold some of its chunks). */
  known: boolean;
  source: IndexedSource;
}

/**
 * The indexer's batch handler. Idempotent and order-insensitive: the batch is collapsed to the
 * newest event per source, events older than the recorded version are skipped, the rest are
 * chunked and compared with the vector index by content hash so only changed chunks are
 * embedded (one embed call per batch), written to the BM25 and the vector index (each upsert
 * replaces changed chunks and deletes chunks the source no longer has), and only then recorded
 * in indexer.indexed_sources. It resolves when all of that is durable, which is when the event
 * log may store its offset; if it throws, nothing is recorded and the batch is delivered again.
 *
 * Engine round trips do not grow with the batch: one hash read of the vector index (and one
 * read of the stored vectors when a source already indexed changed), one embed call, then one
 * upsertMany per index (each one hash read, one write, one delete). Embedding
 * comes before any write, so input the embedder refuses leaves both indexes untouched.
 */
export function createIndexHandler(deps: IndexHandlerDeps): IndexHandler {
  const { db, logger } = deps;
  const { bm25, vectors, embedder } = deps.backends;
  const embedderName = `${vectors.embedder.id}/${vectors.embedder.dimension}`;

  async function embed(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    const out = await embedder.embed(texts);
    if (out.length !== texts.length)
      throw new Error(`embedder returned ${out.length} vectors for ${texts.length} texts`);
    return out;
  }

  return async function handle(batch) {
    const report: IndexReport = {
      events: batch.length,
      deleted: 0,
      indexed: 0,
      unchanged: 0,
      stale: 0,
      chunksWritten: 0,
      chunksDeleted: 0,
      chunksEmbedded: 0,
    };
    const latest = latestPerSource(batch.map((d) => d.event));
    report.stale += batch.length - latest.length;
    const recorded = await readRecorded(db, latest);

    const work: Work[] = [];
    const deletions: { event: ContentDeletedV1; recheck: boolean }[] = [];
    for (const event of latest) {
      const decision = verdict(recorded.get(sourceKeyOf(event)), versionOf(event));
      if (decision === 'stale') report.stale++;
      else if (event.type === 'content.deleted') deletions.push({ event, recheck: decision === 'recheck' });
      else
        work.push({
          event,
          recheck: decision === 'recheck',
          known: recorded.has(sourceKeyOf(event)),
          source: prepareSource(sourceMeta(event), event.text, deps.chunkOptions, event.units),
        });
    }
    const sources = work.map((w) => w.source);

    // Only chunks whose hash the vector index lacks are written. A chunk whose text the index
    // already holds at the same place of the same source changed only in its metadata (new tags,
    // say): it is written again with the vector it has. The rest are embedded, all in one call.
    // A source with no recorded version is new to the indexes (or was half-written before a
    // crash, which the adapters' own hash reads repair): its hashes are not read here, so a
    // batch of new sources goes straight to embedding (one engine round trip less per batch).
    const known = work.filter((w) => w.known).map((w) => w.source);
    const storedHashes = known.length > 0 ? await vectors.hashesMany(known) : new Map<string, Map<number, string>>();
    const changed = planUpsertMany(storedHashes, sources).writes;
    const vectorOf = await keptVectors(
      vectors,
      changed.filter((w) => (storedHashes.get(sourceKeyString(w.source))?.size ?? 0) > 0),
    );
    const toEmbed = changed.map((w) => w.chunk).filter((c) => !vectorOf.has(c));
    const embedded = await embed(toEmbed.map((c) => c.text));
    toEmbed.forEach((c, i) => vectorOf.set(c, embedded[i]!));
    report.chunksEmbedded = toEmbed.length;

    // The vector index asks for exactly the chunks it writes. If another writer changed it since
    // the hash read, that can include chunks not embedded above: they are embedded now.
    const vectorsFor: ChunkVectors = async (chunks) => {
      const missing = chunks.filter((c) => !vectorOf.has(c));
      if (missing.length > 0) {
        logger.warn(
          { chunks: missing.length },
          'vector index changed since the hash read; embedding the chunks it now lacks',
        );
        const more = await embed(missing.map((c) => c.text));
        missing.forEach((c, i) => vectorOf.set(c, more[i]!));
        report.chunksEmbedded += missing.length;
      }
      return chunks.map((c) => vectorOf.get(c)!);
    };
    // allSettled: when one fails, the other has finished too before the batch is retried.
    const [b, v] = settled(
      await Promise.allSettled([bm25.upsertMany(sources), vectors.upsertMany(sources, vectorsFor)]),
    );

    const records: IndexedSourceRow[] = [];
    for (const [i, w] of work.entries()) {
      const chunksWritten = Math.max(b[i]!.inserted + b[i]!.updated, v[i]!.inserted + v[i]!.updated);
      const chunksDeleted = Math.max(b[i]!.deleted, v[i]!.deleted);
      report.chunksWritten += chunksWritten;
      report.chunksDeleted += chunksDeleted;
      if (w.recheck) report.unchanged++;
      else report.indexed++;
      // A recheck that had to repair the indexes (e.g. rebuilt by `quarry reindex`, maybe with
      // another embedder) records again, so `embedder` and `indexed_at` describe what is there.
      if (!w.recheck || chunksWritten + chunksDeleted > 0) records.push(recordOf(w, embedderName));
    }

    // Deletions: every chunk of the source, from both indexes, filtered by its org inside the
    // engine; a replayed deletion removes whatever a lost or rebuilt index brought back.
    for (const { event, recheck } of deletions) {
      const key = { orgId: event.orgId.toLowerCase(), sourceTable: event.sourceTable, sourceId: event.sourceId };
      const [bRemoved, vRemoved] = settled(
        await Promise.allSettled([bm25.deleteSource(key), vectors.deleteSource(key)]),
      );
      report.chunksDeleted += Math.max(bRemoved, vRemoved);
      if (recheck) report.unchanged++;
      else {
        report.deleted++;
        records.push(tombstoneOf(event, embedderName));
      }
    }

    // Last: the record says "these chunks are in both indexes" (or, for a tombstone, "none
    // are"), so it follows the writes.
    await recordIndexed(db, records);
    return report;
  };
}

/**
 * The vectors the index already holds for chunks about to be rewritten with the same text (read
 * only for sources that have something stored, so a batch of new sources costs no extra read).
 */
async function keptVectors(
  vectors: VectorIndex,
  rewrites: readonly { source: IndexedSource; chunk: IndexedChunk }[],
): Promise<Map<IndexedChunk, number[]>> {
  const kept = new Map<IndexedChunk, number[]>();
  if (rewrites.length === 0) return kept;
  const keys = [...new Map(rewrites.map((w) => [sourceKeyString(w.source), w.source])).values()];
  const stored = await vectors.storedVectors(keys);
  for (const { source, chunk } of rewrites) {
    const prior = stored.get(sourceKeyString(source))?.get(chunk.chunkNo);
    if (prior && prior.text === chunk.text && prior.vector.length === vectors.embedder.dimension)
      kept.set(chunk, prior.vector);
  }
  return kept;
}

/** Fail fast when the embedder would write vectors the index was not built for. */
export async function assertEmbedderMatches(backends: Pick<SearchBackends, 'vectors' | 'embedder'>): Promise<void> {
  const identity = await backends.embedder.identity();
  const built = backends.vectors.embedder;
  if (identity.id !== built.id || identity.dimension !== built.dimension)
    throw new EmbedderMismatchError(built, identity);
}

function settled<A, B>([a, b]: [PromiseSettledResult<A>, PromiseSettledResult<B>]): [A, B] {
  if (a.status === 'rejected') throw a.reason;
  if (b.status === 'rejected') throw b.reason;
  return [a.value, b.value];
}

function sourceMeta(event: ContentCreatedV1): SourceMeta {
  return {
    orgId: event.orgId.toLowerCase(),
    sourceTable: event.sourceTable,
    sourceId: event.sourceId,
    title: event.title,
    ...(event.planId ? { planId: event.planId } : {}),
    ...(event.artifactType ? { artifactType: event.artifactType } : {}),
    ...(event.tags ? { tags: event.tags } : {}),
    ...(event.createdAt ? { createdAt: event.createdAt } : {}),
  };
}

function recordOf(w: Work, embedder: string): IndexedSourceRow {
  const { event } = w;
  return {
    org_id: event.orgId.toLowerCase(),
    source_table: event.sourceTable,
    source_id: event.sourceId,
    event_id: event.eventId.toLowerCase(),
    // Whole milliseconds, exactly what versionOf compares.
    occurred_at: new Date(versionOf(event).occurredAtMs),
    text_sha256: createHash('sha256').update(event.text).digest('hex'),
    chunk_count: w.source.chunks.length,
    embedder,
    deleted_at: null,
  };
}

const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');

/** The tombstone of a deleted source: its deletion as the version, no chunks, no content. */
function tombstoneOf(event: ContentDeletedV1, embedder: string): IndexedSourceRow {
  return {
    org_id: event.orgId.toLowerCase(),
    source_table: event.sourceTable,
    source_id: event.sourceId,
    event_id: event.eventId.toLowerCase(),
    occurred_at: new Date(versionOf(event).occurredAtMs),
    text_sha256: EMPTY_SHA256,
    chunk_count: 0,
    embedder,
    deleted_at: new Date(),
  };
}
