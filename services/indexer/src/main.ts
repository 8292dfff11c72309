import { runService } from '@quarry/telemetry';
import { kafkaSecurity, loadIndexerConfig } from './config.js';

// The indexer as its own process (its container): it answers no calls; /metrics on HOST:METRICS_PORT.
await runService({
  service: 'indexer',
  loadConfig: loadIndexerConfig,
  start: async (config, logger) => {
    const { startIndexer } = await import('./runtime.js');
    return startIndexer({
      logger,
      host: config.HOST,
      metricsPort: config.METRICS_PORT,
      databaseUrl: config.DATABASE_URL,
      search: config,
      batchSize: config.INDEXER_BATCH_SIZE,
      outboxRetentionMs: config.QUARRY_OUTBOX_RETENTION,
      outboxCompactionIntervalMs: config.QUARRY_OUTBOX_COMPACTION_INTERVAL,
      kafka: config.KAFKA_BROKERS
        ? { brokers: config.KAFKA_BROKERS, security: kafkaSecurity(config), relay: config.QUARRY_OUTBOX_RELAY }
        : undefined,
    });
  },
});
