import type { Logger } from 'pino';
import { EmbedderMismatchError, type Embedder, type SearchBackends, type SearchScope } from '@quarry/search-index';
import { searchErrors, type SearchLeg } from './errors.js';
import type { StoredSources } from './stored-sources.js';

// Engine failures: every call into an engine is tagged with the part of the search it belongs
// to, so the caller's error can name the leg while the engine's own details stay in the log.

/** An engine call that failed, tagged with the part of the search it belongs to. */
class LegFailure extends Error {
  constructor(
    readonly leg: SearchLeg,
    cause: unknown,
  ) {
    super(`search ${leg} failed`, { cause });
  }
}

async function onLeg<T>(leg: SearchLeg, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof EmbedderMismatchError) throw error;
    throw new LegFailure(leg, error);
  }
}

/**
 * The same backends (and check of stored sources), with every failure tagged by leg so the error
 * can name it. A search whose sources cannot be checked fails: it might list a deleted source.
 */
export function tagged(
  backends: Pick<SearchBackends, 'bm25' | 'vectors' | 'embedder'>,
  stored: StoredSources | undefined,
) {
  const { bm25, vectors, embedder } = backends;
  const taggedEmbedder: Embedder = {
    ...(embedder.lexical ? { lexical: true } : {}),
    identity: () => onLeg('embedder', () => embedder.identity()),
    embed: (texts) => onLeg('embedder', () => embedder.embed(texts)),
  };
  return {
    bm25: { search: (query: string, scope: SearchScope) => onLeg('keyword index', () => bm25.search(query, scope)) },
    vectors: {
      embedder: vectors.embedder,
      search: (vector: number[], scope: SearchScope) => onLeg('vector index', () => vectors.search(vector, scope)),
    },
    embedder: taggedEmbedder,
    ...(stored
      ? { stored: ((scope, sources) => onLeg('artifact store', () => stored(scope, sources))) as StoredSources }
      : {}),
  };
}

/**
 * What the caller is told when a search fails: INDEX_EMBEDDER_MISMATCH, INVALID_ARGUMENT (a
 * limit the hybrid search refused) or SEARCH_UNAVAILABLE naming the leg, each logged here with
 * its cause. Anything else is a bug, returned as is: the gRPC server logs it and answers INTERNAL.
 */
export function searchFailure(error: unknown, logger: Logger, requestId: string): unknown {
  if (error instanceof EmbedderMismatchError) {
    logger.error({ err: error, requestId }, 'search index and embedder do not match');
    return searchErrors.INDEX_EMBEDDER_MISMATCH({ index: error.stored, configured: error.requested }, { cause: error });
  }
  if (error instanceof RangeError)
    return searchErrors.INVALID_ARGUMENT(
      { field: 'limit', rule: 'must be between 1 and 50 (default 10)' },
      { cause: error },
    );
  if (error instanceof LegFailure) {
    logger.error({ err: error.cause, leg: error.leg, requestId }, 'search engine failed');
    return searchErrors.SEARCH_UNAVAILABLE({ leg: error.leg }, { details: { leg: error.leg }, cause: error.cause });
  }
  return error;
}
