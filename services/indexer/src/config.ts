import { env, loadConfig, z } from '@quarry/config';
import { searchBackendsConfigRule, searchBackendsConfigShape } from '@quarry/search';

/** Every variable the indexer reads; validated once at startup, frozen afterwards. */
export const indexerConfigSchema = z
  .object({
    DATABASE_URL: env.url().describe('PostgreSQL for the indexer role: member of quarry_event_consumer, RLS applies'),
    KAFKA_BROKERS: z
      .string()
      .regex(/^\s*[^,\s]+(\s*,\s*[^,\s]+)*\s*$/, 'must be a comma-separated list of host:port')
      .optional()
      .describe('Kafka brokers (default: consume the outbox table itself)'),
    QUARRY_OUTBOX_RELAY: env.bool(true).describe('With KAFKA_BROKERS: also relay outbox rows to Kafka from this process'),
    ...searchBackendsConfigShape,
    INDEXER_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(100),
    METRICS_HOST: env.host('0.0.0.0'),
    METRICS_PORT: env.port(9464),
    LOG_LEVEL: env.logLevel(),
    OTEL_EXPORTER_OTLP_ENDPOINT: env.url().optional(),
  })
  .superRefine(searchBackendsConfigRule);

export type IndexerConfig = ReturnType<typeof loadIndexerConfig>;

export function loadIndexerConfig(source: Readonly<Record<string, string | undefined>> = process.env) {
  return loadConfig(indexerConfigSchema, source);
}
