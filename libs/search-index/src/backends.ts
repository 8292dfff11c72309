import { join, resolve } from 'node:path';
import { z } from '@quarry/config';
import { dropLanceTables, lanceSession } from './adapters/lancedb.js';
import { openLanceBm25Index } from './adapters/lancedb-bm25.js';
import type { LanceUpkeep } from './adapters/lancedb-table.js';
import { openLanceVectorIndex } from './adapters/lancedb-vector.js';
import { buildOpenSearchClient, openOpenSearchBm25Index } from './adapters/opensearch.js';
import { buildQdrantClient, openQdrantVectorIndex } from './adapters/qdrant.js';
import { availableMemoryMb } from './adapters/available-memory.js';
import { lanceCacheCaps } from './core/cache-caps.js';
import { createLocalEmbedder } from './core/local-embedder.js';
import { createHttpEmbedder } from './embedders/http.js';
import type { Bm25Index, Embedder, VectorIndex } from './types.js';

/** Engines speak HTTP: `opensearch:9200` (a forgotten scheme) parses as a URL but is refused here. */
const httpUrl = () => z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });

/**
 * The environment that chooses the search engines, shared by the search service, the indexer
 * and `quarry reindex` so all three always open the same indexes. Unset URL = embedded default.
 */
export const searchBackendsConfigShape = {
  QUARRY_DATA_DIR: z
    .string()
    .min(1)
    .optional()
    .describe('Embedded data directory (default ./.quarry); the LanceDB indexes live in <dir>/search'),
  OPENSEARCH_URL: httpUrl()
    .optional()
    .describe('OpenSearch for the BM25 index (default: embedded LanceDB full-text index)'),
  OPENSEARCH_INDEX: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'lowercase letters, digits, - and _')
    .default('quarry-chunks'),
  QDRANT_URL: httpUrl().optional().describe('Qdrant for the vector index (default: embedded LanceDB vector table)'),
  QDRANT_API_KEY: z.string().min(1).optional(),
  QDRANT_COLLECTION: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, - and _')
    .default('quarry_chunks'),
  LANCEDB_INDEX_CACHE_MB: z.coerce
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      'Embedded indexes: MiB of decoded index data LanceDB keeps in memory, shared by both tables (default: an eighth of the memory available, at most 1024)',
    ),
  LANCEDB_METADATA_CACHE_MB: z.coerce
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      'Embedded indexes: MiB of file metadata LanceDB keeps in memory, shared by both tables (default: a thirty-second of the memory available, at most 256)',
    ),
  EMBEDDINGS_URL: httpUrl()
    .optional()
    .describe('OpenAI-compatible /v1/embeddings endpoint (default: the local lexical embedder)'),
  EMBEDDINGS_MODEL: z.string().min(1).optional(),
  EMBEDDINGS_API_KEY: z.string().min(1).optional(),
  EMBEDDINGS_DIMENSION: z.coerce.number().int().positive().max(65_536).optional(),
  EMBEDDINGS_SIMILARITY_FLOOR: z.coerce
    .number()
    .min(-1)
    .max(1)
    .optional()
    .describe('Cosine similarity under which a hit found by vector search alone is dropped (default: none)'),
};

/**
 * The rule a field schema cannot express: an embeddings endpoint needs a model name. Exported
 * because spreading `searchBackendsConfigShape` into a service's own schema drops refinements:
 * every schema built from the shape applies this with `.superRefine(searchBackendsConfigRule)`.
 */
export function searchBackendsConfigRule(
  config: { EMBEDDINGS_URL?: string | undefined; EMBEDDINGS_MODEL?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (config.EMBEDDINGS_URL && !config.EMBEDDINGS_MODEL) {
    ctx.addIssue({
      code: 'custom',
      path: ['EMBEDDINGS_MODEL'],
      message: 'is required when EMBEDDINGS_URL is set (the model name the endpoint expects)',
    });
  }
}

/**
 * A search or indexer process of its own must be told where the embedded LanceDB indexes are:
 * each defaulting to its own working directory's `./.quarry` would have the indexer write one
 * directory and search read another, silently. `quarry start` and `quarry reindex` pass their
 * data directory and do not apply this rule.
 */
export function embeddedIndexesDirRule(
  config: {
    QUARRY_DATA_DIR?: string | undefined;
    OPENSEARCH_URL?: string | undefined;
    QDRANT_URL?: string | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  if (config.QUARRY_DATA_DIR || (config.OPENSEARCH_URL && config.QDRANT_URL)) return;
  const embedded = [!config.OPENSEARCH_URL && 'OPENSEARCH_URL', !config.QDRANT_URL && 'QDRANT_URL'].filter(Boolean);
  ctx.addIssue({
    code: 'custom',
    path: ['QUARRY_DATA_DIR'],
    message: `is required while ${embedded.join(' and ')} ${embedded.length > 1 ? 'are' : 'is'} unset: the embedded LanceDB indexes live in <QUARRY_DATA_DIR>/search, and search and the indexer must both be given the same directory`,
  });
}

export const searchBackendsConfigSchema = z.object(searchBackendsConfigShape).superRefine(searchBackendsConfigRule);

export type SearchBackendsConfig = Readonly<z.infer<typeof searchBackendsConfigSchema>>;

export interface SearchBackends {
  bm25: Bm25Index;
  vectors: VectorIndex;
  embedder: Embedder;
  /** Which engine serves each port, for logs and /readyz. */
  describe: { bm25: 'opensearch' | 'lancedb'; vectors: 'qdrant' | 'lancedb'; embedder: string };
  /**
   * After a bulk load nothing else reads (`quarry reindex`): the embedded tables fold now and
   * delete their older versions, so the disk holds the live data when the command ends.
   */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** Where the embedded indexes live: `<QUARRY_DATA_DIR or ./.quarry>/search`. */
export function embeddedSearchDir(config: Pick<SearchBackendsConfig, 'QUARRY_DATA_DIR'>): string {
  return join(resolve(config.QUARRY_DATA_DIR ?? '.quarry'), 'search');
}

/** The configured cache caps, else those the memory available allows (ADR 0037). */
export function embeddedCacheCaps(
  config: Pick<SearchBackendsConfig, 'LANCEDB_INDEX_CACHE_MB' | 'LANCEDB_METADATA_CACHE_MB'>,
  availableMb: () => number = availableMemoryMb,
): { indexCacheMb: number; metadataCacheMb: number } {
  const caps =
    config.LANCEDB_INDEX_CACHE_MB && config.LANCEDB_METADATA_CACHE_MB ? undefined : lanceCacheCaps(availableMb());
  return {
    indexCacheMb: config.LANCEDB_INDEX_CACHE_MB ?? caps!.indexCacheMb,
    metadataCacheMb: config.LANCEDB_METADATA_CACHE_MB ?? caps!.metadataCacheMb,
  };
}

function createEmbedder(config: SearchBackendsConfig): Embedder {
  if (!config.EMBEDDINGS_URL) return createLocalEmbedder();
  return createHttpEmbedder({
    url: config.EMBEDDINGS_URL,
    model: config.EMBEDDINGS_MODEL!,
    ...(config.EMBEDDINGS_API_KEY ? { apiKey: config.EMBEDDINGS_API_KEY } : {}),
    ...(config.EMBEDDINGS_DIMENSION ? { dimension: config.EMBEDDINGS_DIMENSION } : {}),
    ...(config.EMBEDDINGS_SIMILARITY_FLOOR !== undefined
      ? { similarityFloor: config.EMBEDDINGS_SIMILARITY_FLOOR }
      : {}),
  });
}

export interface OpenSearchBackendsOptions {
  /** Make OpenSearch writes visible before returning (tests, benchmarks). */
  refresh?: boolean;
  /** LanceDB: compact every N writes (default 100). */
  optimizeEvery?: number;
  /**
   * LanceDB: seconds after which a read looks for versions written by another process (see
   * LanceOptions). Set it where the search service runs apart from the indexer; leave it unset
   * when both share these backends in one process.
   */
  readConsistencyIntervalSeconds?: number;
}

/**
 * Open the BM25 index, the vector index and the embedder the environment names. The vector
 * index is opened for the embedder's identity: an index built by another embedder or dimension
 * is refused (EmbedderMismatchError) until `quarry reindex` rebuilds it.
 */
export async function openSearchBackends(
  config: SearchBackendsConfig,
  options: OpenSearchBackendsOptions = {},
): Promise<SearchBackends> {
  const embedder = createEmbedder(config);
  const identity = await embedder.identity();
  const dir = embeddedSearchDir(config);
  const opened: { close(): Promise<void> }[] = [];
  const embedded: LanceUpkeep[] = [];
  const upkept = <T extends LanceUpkeep>(index: T): T => (embedded.push(index), index);
  // Created only when a table is embedded; one session, so both tables share one bounded cache,
  // sized for the memory this process may use (a container's limit) unless configured.
  const session = config.OPENSEARCH_URL && config.QDRANT_URL ? undefined : lanceSession(embeddedCacheCaps(config));
  try {
    const bm25 = config.OPENSEARCH_URL
      ? await openOpenSearchBm25Index({
          client: buildOpenSearchClient(config.OPENSEARCH_URL),
          index: config.OPENSEARCH_INDEX,
          refresh: options.refresh,
        })
      : upkept(
          await openLanceBm25Index({
            dir,
            optimizeEvery: options.optimizeEvery,
            readConsistencyIntervalSeconds: options.readConsistencyIntervalSeconds,
            session,
          }),
        );
    opened.push(bm25);
    const vectors = config.QDRANT_URL
      ? await openQdrantVectorIndex({
          client: buildQdrantClient(config.QDRANT_URL, config.QDRANT_API_KEY),
          embedder: identity,
          collection: config.QDRANT_COLLECTION,
        })
      : upkept(
          await openLanceVectorIndex({
            dir,
            embedder: identity,
            optimizeEvery: options.optimizeEvery,
            readConsistencyIntervalSeconds: options.readConsistencyIntervalSeconds,
            session,
          }),
        );
    opened.push(vectors);
    return {
      bm25,
      vectors,
      embedder,
      describe: {
        bm25: config.OPENSEARCH_URL ? 'opensearch' : 'lancedb',
        vectors: config.QDRANT_URL ? 'qdrant' : 'lancedb',
        embedder: identity.id,
      },
      async settle() {
        for (const index of embedded) await index.settle();
      },
      async close() {
        await Promise.allSettled(opened.map((o) => o.close()));
      },
    };
  } catch (error) {
    await Promise.allSettled(opened.map((o) => o.close()));
    throw error;
  }
}

/**
 * Delete both indexes the environment names (what `quarry reindex` does before replaying every
 * content event): the LanceDB tables, the OpenSearch index, the Qdrant collection. Idempotent.
 */
export async function dropSearchIndexes(config: SearchBackendsConfig): Promise<void> {
  if (config.OPENSEARCH_URL) {
    await buildOpenSearchClient(config.OPENSEARCH_URL).indices.delete({
      index: config.OPENSEARCH_INDEX,
      ignore_unavailable: true,
    });
  }
  if (config.QDRANT_URL) {
    const client = buildQdrantClient(config.QDRANT_URL, config.QDRANT_API_KEY);
    if ((await client.collectionExists(config.QDRANT_COLLECTION)).exists)
      await client.deleteCollection(config.QDRANT_COLLECTION);
  }
  if (!config.OPENSEARCH_URL || !config.QDRANT_URL)
    await dropLanceTables(embeddedSearchDir(config), [
      ...(config.OPENSEARCH_URL ? [] : ['chunks_bm25']),
      ...(config.QDRANT_URL ? [] : ['chunks_vec']),
    ]);
}
