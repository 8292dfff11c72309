import { defineErrors, status } from '@quarry/grpc';
import type { EmbedderIdentity } from '@quarry/search-index';

/** The part of a search that failed, as SEARCH_UNAVAILABLE names it (and nothing more about it). */
export type SearchLeg = 'keyword index' | 'vector index' | 'embedder' | 'artifact store';

/**
 * The search service's error catalogue. Codes are stable: the gateway passes them to the model
 * as the tool error's `code`. Messages say what to do and never carry engine internals (URLs,
 * credentials, engine error text): those stay in the service's log.
 */
export const searchErrors = defineErrors({
  INVALID_ARGUMENT: {
    status: status.INVALID_ARGUMENT,
    message: (p: { field: string; rule: string }) => `\`${p.field}\` ${p.rule}.`,
  },
  INDEX_EMBEDDER_MISMATCH: {
    status: status.FAILED_PRECONDITION,
    message: (p: { index: EmbedderIdentity; configured: EmbedderIdentity }) =>
      `The search index was built by embedder ${p.index.id} (dimension ${p.index.dimension}), but the search service is configured ` +
      `with ${p.configured.id} (dimension ${p.configured.dimension}); vectors of the two cannot be compared. ` +
      'Run `quarry reindex` to rebuild the index with the configured embedder.',
  },
  SEARCH_UNAVAILABLE: {
    status: status.UNAVAILABLE,
    message: (p: { leg: SearchLeg }) => `Search is unavailable: the ${p.leg} did not answer. Try again shortly.`,
  },
});
