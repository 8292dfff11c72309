export * from './types.js';
export { chunkText, DEFAULT_CHUNK_OPTIONS, type ChunkOptions } from './core/chunker.js';
export { prepareSource, planUpsert, planUpsertMany, chunkHash, chunkId, sourceKeyString, carriedVectors, type UpsertPlan, type BatchPlan } from './core/source.js';
export { createLocalEmbedder, embedLexical, LOCAL_EMBEDDER_VERSION, type LocalEmbedderOptions } from './core/local-embedder.js';
export { classifyQuery, fuse, rankSources, FUSION_WEIGHTS, LEXICAL_FUSION_WEIGHTS, RRF_K, type QueryType, type FusedResult, type LegWeights } from './core/fusion.js';
export { snippet } from './core/snippet.js';
export { words, STOP_WORDS } from './core/text.js';
export { createHttpEmbedder, embeddingsEndpoint, EmbeddingHttpError, type HttpEmbedderOptions } from './embedders/http.js';
export {
  openLanceBm25Index,
  openLanceVectorIndex,
  lanceWhere,
  lanceSourcesWhere,
  lanceChunksWhere,
  EMBEDDER_METADATA_KEY,
  dropLanceTables,
  type LanceOptions,
  type LanceBm25Index,
  type LanceVectorIndex,
} from './adapters/lancedb.js';
export {
  openOpenSearchBm25Index,
  buildOpenSearchClient,
  openSearchIndexTemplate,
  openSearchFilters,
  type OpenSearchBm25Options,
} from './adapters/opensearch.js';
export { openQdrantVectorIndex, buildQdrantClient, qdrantFilter, qdrantSourcesFilter, pointId, type QdrantVectorOptions } from './adapters/qdrant.js';
export {
  buildHybridSearch,
  type HybridSearchDeps,
  type HybridSearchRequest,
  type HybridSearchResponse,
  type HybridSearchResultItem,
} from './hybrid.js';
export {
  openSearchBackends,
  dropSearchIndexes,
  createEmbedder,
  embeddedSearchDir,
  searchBackendsConfigShape,
  searchBackendsConfigSchema,
  searchBackendsConfigRule,
  type SearchBackends,
  type SearchBackendsConfig,
  type OpenSearchBackendsOptions,
} from './backends.js';
export { searchErrors, type SearchLeg } from './errors.js';
export { createSearchService, type SearchServiceDeps } from './service.js';
export { buildServer, type SearchServerDeps } from './server.js';
export { startSearch, type SearchRuntime, type SearchRuntimeOptions } from './runtime.js';
export { searchConfigSchema, loadSearchConfig, type SearchConfig } from './config.js';
