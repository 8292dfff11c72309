import { env, loadConfig, z } from '@quarry/config';
import { searchBackendsConfigRule, searchBackendsConfigShape } from '@quarry/search-index';

/** Every variable the search service reads; validated once at startup, frozen afterwards. */
export const searchConfigSchema = z
  .object({
    HOST: env.host('127.0.0.1'),
    PORT: env.port(50053),
    QUARRY_IDENTITY_KEY: z.string().min(32, 'must be at least 32 characters (it verifies caller identity)'),
    LOG_LEVEL: env.logLevel(),
    OTEL_EXPORTER_OTLP_ENDPOINT: env.url().optional(),
    SEARCH_READ_CONSISTENCY: env
      .duration('1s')
      .describe(
        'Embedded LanceDB: how soon writes by a separate indexer process become visible to searches (0 = every read checks)',
      ),
    ...searchBackendsConfigShape,
  })
  .superRefine(searchBackendsConfigRule);

export type SearchConfig = ReturnType<typeof loadSearchConfig>;

export function loadSearchConfig(source: Readonly<Record<string, string | undefined>> = process.env) {
  return loadConfig(searchConfigSchema, source);
}
