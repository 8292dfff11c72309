import { DEFAULT_PORTS, env, grpcServiceFields, loadConfig, z } from '@quarry/config';
import { embeddedIndexesDirRule, searchBackendsConfigRule, searchBackendsConfigShape } from '@quarry/search-index';

/** Every variable the search service reads; validated once at startup, frozen afterwards. */
const searchConfigSchema = z
  .object({
    ...grpcServiceFields(DEFAULT_PORTS.search),
    SEARCH_READ_CONSISTENCY: env
      .duration('1s')
      .describe(
        'Embedded LanceDB: how soon writes by a separate indexer process become visible to searches (0 = every read checks)',
      ),
    SEARCH_LEG_TIMEOUT: env
      .duration('2s')
      .describe(
        'With a semantic embedder: once one leg has answered, how long after the start the other may take before the page is the first leg’s alone',
      ),
    ARTIFACT_STORE_ADDRESS: z
      .string()
      .min(1)
      .default(`127.0.0.1:${DEFAULT_PORTS['artifact-store'].port}`)
      .describe('host:port of the artifact store, which says which of the sources found are still stored'),
    ...searchBackendsConfigShape,
  })
  .superRefine((config, ctx) => {
    searchBackendsConfigRule(config, ctx);
    embeddedIndexesDirRule(config, ctx);
  });

export type SearchConfig = ReturnType<typeof loadSearchConfig>;

export function loadSearchConfig(source: Readonly<Record<string, string | undefined>> = process.env) {
  return loadConfig(searchConfigSchema, source);
}
