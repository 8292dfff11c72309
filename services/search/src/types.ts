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
}

/** A contiguous slice of the source text; `start`/`end` are character offsets into it. */
export interface Chunk {
  chunkNo: number;
  text: string;
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
 * hold; `tags` matches sources carrying every listed tag.
 */
export interface ChunkFilters {
  sourceTable?: string;
  artifactType?: string;
  planId?: string;
  tags?: string[];
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
}

/** What an upsert did, chunk by chunk. Re-upserting identical content reports only `unchanged`. */
export interface UpsertReport {
  inserted: number;
  updated: number;
  deleted: number;
  unchanged: number;
}

/** Common to both index ports. */
export interface ChunkStore<S> {
  /** Insert new chunks, replace changed ones (by content hash), delete chunks the source no longer has. */
  upsert(source: S): Promise<UpsertReport>;
  /** Remove every chunk of a source; returns how many were removed. */
  deleteSource(key: SourceKey): Promise<number>;
  /** chunkNo → contentHash of what is stored for a source (lets callers skip unchanged work). */
  hashes(key: SourceKey): Promise<Map<number, string>>;
  close(): Promise<void>;
}

/** Keyword (BM25) index port. */
export interface Bm25Index extends ChunkStore<IndexedSource> {
  search(query: string, scope: SearchScope): Promise<ChunkHit[]>;
}

/** Vector index port; built for exactly one embedder identity. */
export interface VectorIndex extends ChunkStore<EmbeddedSource> {
  readonly embedder: EmbedderIdentity;
  search(vector: number[], scope: SearchScope): Promise<ChunkHit[]>;
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
