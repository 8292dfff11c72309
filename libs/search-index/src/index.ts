// @quarry/search-index: how content becomes searchable and is read back — the chunker, the
// embedders and the index adapters (LanceDB embedded; OpenSearch and Qdrant in production). The
// indexer writes through it, the search service reads through it, `quarry reindex` drops it.
export * from './types.js';
export { chunkText, type ChunkOptions } from './core/chunker.js';
export {
  prepareSource,
  planUpsert,
  planUpsertMany,
  sourceKeyString,
  type UpsertPlan,
  type BatchPlan,
} from './core/source.js';
export {
  createLocalEmbedder,
  embedLexical,
  LOCAL_EMBEDDER_VERSION,
  type LocalEmbedderOptions,
} from './core/local-embedder.js';
export { words, STOP_WORDS } from './core/text.js';
export {
  createHttpEmbedder,
  embeddingsEndpoint,
  EmbeddingHttpError,
  type HttpEmbedderOptions,
} from './embedders/http.js';
export { type LanceOptions } from './adapters/lancedb.js';
export { openLanceBm25Index, type LanceBm25Index } from './adapters/lancedb-bm25.js';
export { openLanceVectorIndex, type LanceVectorIndex, type LanceAnnState } from './adapters/lancedb-vector.js';
export { lanceWhere, lanceSourcesWhere, lanceChunksWhere } from './adapters/lancedb-where.js';
export { openOpenSearchBm25Index, type OpenSearchBm25Options } from './adapters/opensearch.js';
export { openQdrantVectorIndex, buildQdrantClient, pointId, type QdrantVectorOptions } from './adapters/qdrant.js';
export {
  openSearchBackends,
  dropSearchIndexes,
  embeddedSearchDir,
  searchBackendsConfigShape,
  searchBackendsConfigSchema,
  searchBackendsConfigRule,
  embeddedIndexesDirRule,
  type SearchBackends,
  type SearchBackendsConfig,
  type OpenSearchBackendsOptions,
} from './backends.js';
