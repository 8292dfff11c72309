// @quarry/search: search_sources over gRPC (quarry.search.v1.SearchService) — hybrid retrieval
// (BM25 + vectors, Reciprocal Rank Fusion) over the indexes of @quarry/search-index.
export {
  classifyQuery,
  fuse,
  keywordFirst,
  rankResults,
  rankSources,
  FUSION_WEIGHTS,
  type QueryType,
  type SearchMode,
  type FusedResult,
  type LegWeights,
} from './core/fusion.js';
export { snippet } from './core/snippet.js';
export {
  buildHybridSearch,
  type HybridSearchDeps,
  type HybridSearchRequest,
  type HybridSearchResponse,
  type HybridSearchResultItem,
} from './hybrid.js';
export { type SearchLeg } from './errors.js';
export { createSearchService, type SearchServiceDeps } from './service.js';
export { startSearch, type SearchRuntime } from './runtime.js';
export { loadSearchConfig, type SearchConfig } from './config.js';
