/**
 * Shared shapes of the search library. A *source* is one indexed record (a research artifact,
 * an output, an extraction result); it is split into *chunks*, each stored in the BM25 index and
 * the vector index under the key (orgId, sourceTable, sourceId, chunkNo).
 */

/** Identifies one source inside one tenant. Every write and read is scoped by `orgId`. */
export interface SourceKey {
  orgId: string;
  sourceTable: string;
  sourceId: string;
}

/** Per-source metadata copied onto every chunk so that filters run inside the engine. */
export interface SourceMeta extends SourceKey {
  title: string;
  planId?: string;
  artifactType?: string;
  tags?: string[];
  /** When the source was stored (ISO 8601; prepareSource stores it in UTC as toISOString writes it), when known. */
  createdAt?: string;
}

/**
 * A contiguous slice of the source text; `start`/`end` are character offsets into it. A source
 * document's chunk lies within one unit (page, slide, sheet), whose number it carries.
 */
export interface Chunk {
  chunkNo: number;
  text: string;
  start: number;
  end: number;
  unit?: number;
}

/** A unit (page, slide, sheet, section) of a source document: its number and its span in the text. */
export interface TextUnit {
  number: number;
  start: number;
  end: number;
}

/** A chunk plus the hash of everything stored with it (text and metadata). */
export interface IndexedChunk extends Chunk {
  contentHash: string;
}

/** All chunks of one source: what the BM25 index stores. */
export interface IndexedSource extends SourceMeta {
  chunks: IndexedChunk[];
}

/** All chunks of one source with their vectors: what the vector index stores. */
export interface EmbeddedSource extends SourceMeta {
  chunks: (IndexedChunk & { vector: number[] })[];
}

/**
 * Filters applied INSIDE the engine together with the org filter. All given conditions must
 * hold; `tags` matches sources carrying every listed tag. `createdSince`/`createdUntil` bound the
 * source's createdAt, both inclusive, as UTC ISO strings in `Date.toISOString()` form (years
 * 0000–9999: that fixed width is what lets LanceDB compare them as strings); a source without a
 * createdAt never matches a date bound.
 */
export interface ChunkFilters {
  sourceTable?: string;
  artifactType?: string;
  planId?: string;
  tags?: string[];
  createdSince?: string;
  createdUntil?: string;
}

export interface SearchScope {
  orgId: string;
  filters?: ChunkFilters;
  /** Maximum number of chunks returned. */
  limit: number;
}

/** One matching chunk; `score` is engine-specific (BM25 score, cosine similarity). */
export interface ChunkHit {
  sourceTable: string;
  sourceId: string;
  chunkNo: number;
  title: string;
  text: string;
  start: number;
  end: number;
  score: number;
  /** The source's plan, when it has one (stored beside every chunk). */
  planId?: string;
  /** The source's tags (stored beside every chunk). */
  tags?: string[];
  /** When the source was stored (ISO 8601), when its documents record it. */
  createdAt?: string;
  /** The unit (page, slide, sheet) of a source document the chunk lies in. */
  unit?: number;
}

/** What an upsert did, chunk by chunk. Re-upserting identical content reports only `unchanged`. */
export interface UpsertReport {
  inserted: number;
  updated: number;
  deleted: number;
  unchanged: number;
}

/**
 * Common to both index ports. The `*Many` forms do the work of many sources in a fixed number of
 * engine round trips (one hash read, one write, one delete; Qdrant splits writes of more than 256
 * points) instead of a few per source: indexing cost is dominated by round trips, not by the data
 * written. Batch results are keyed by `sourceKeyString(key)`.
 */
export interface ChunkStore<S> {
  /** Insert new chunks, replace changed ones (by content hash), delete chunks the source no longer has. */
  upsert(source: S): Promise<UpsertReport>;
  /** Remove every chunk of a source; returns how many were removed. */
  deleteSource(key: SourceKey): Promise<number>;
  /** chunkNo → contentHash of what is stored for a source (lets callers skip unchanged work). */
  hashes(key: SourceKey): Promise<Map<number, string>>;
  /**
   * `hashes` of many sources (of any orgs) in one read: sourceKeyString(key) → chunkNo → contentHash,
   * with an entry (empty when nothing is stored) for every key given.
   */
  hashesMany(keys: readonly SourceKey[]): Promise<Map<string, Map<number, string>>>;
  close(): Promise<void>;
}

/** Keyword (BM25) index port. */
export interface Bm25Index extends ChunkStore<IndexedSource> {
  /**
   * `upsert` of many sources: one hash read, then one write of every changed chunk and one delete
   * of every vanished one. One report per source, in the order given; a source given twice is
   * refused (which of the two should win is the caller's decision).
   */
  upsertMany(sources: readonly IndexedSource[]): Promise<UpsertReport[]>;
  search(query: string, scope: SearchScope): Promise<ChunkHit[]>;
}

/**
 * Supplies the vectors of the chunks a vector upsert is about to write, one per chunk in the
 * order given. The chunks are the very objects of the sources passed to `upsertMany` (callers
 * may look them up by identity), and only those whose content hash the index lacks: unchanged
 * chunks are never asked for, so nothing is embedded twice and no stand-in vector is ever needed.
 * Called at most once per `upsertMany`, and not at all when nothing is to be written.
 */
export type ChunkVectors = (chunks: readonly IndexedChunk[]) => Promise<number[][]>;

/** Vector index port; built for exactly one embedder identity. */
export interface VectorIndex extends ChunkStore<EmbeddedSource> {
  readonly embedder: EmbedderIdentity;
  /**
   * `upsert` of many sources, like Bm25Index.upsertMany; the vectors are asked for after the
   * hash read, so they are exactly the ones written (see ChunkVectors).
   */
  upsertMany(sources: readonly IndexedSource[], vectors: ChunkVectors): Promise<UpsertReport[]>;
  search(vector: number[], scope: SearchScope): Promise<ChunkHit[]>;
  /**
   * The text and vector stored for every chunk of the given sources, in one read:
   * sourceKeyString(key) → chunkNo → StoredVector (an empty map for a key with nothing stored).
   * A chunk rewritten only because its source's metadata changed (new tags, say) keeps its text,
   * so a caller can write it again with the vector it has instead of embedding the text again.
   */
  storedVectors(keys: readonly SourceKey[]): Promise<Map<string, Map<number, StoredVector>>>;
}

/** A chunk's text and vector as the vector index holds them. */
export interface StoredVector {
  text: string;
  vector: number[];
}

/** Which embedder produced a vector space; vectors of different identities never mix. */
export interface EmbedderIdentity {
  id: string;
  dimension: number;
}

/** Turns texts into vectors of one fixed dimension. */
export interface Embedder {
  identity(): Promise<EmbedderIdentity>;
  /** True when vectors only capture shared words (the local embedder): fusion then leans on BM25. */
  readonly lexical?: boolean;
  /**
   * Cosine similarity under which a chunk found by the vector index alone is noise for this
   * embedder (search drops it). Unset: nothing is dropped.
   */
  readonly similarityFloor?: number;
  /** One vector per input text, in order. */
  embed(texts: readonly string[]): Promise<number[][]>;
}

/** Thrown when an index built by one embedder is opened (or written) with another. */
export class EmbedderMismatchError extends Error {
  constructor(
    readonly stored: EmbedderIdentity,
    readonly requested: EmbedderIdentity,
  ) {
    super(
      `vector index was built by embedder ${stored.id} (dimension ${stored.dimension}) but ${requested.id} ` +
        `(dimension ${requested.dimension}) was requested; rebuild it with \`quarry reindex\``,
    );
    this.name = 'EmbedderMismatchError';
  }
}
