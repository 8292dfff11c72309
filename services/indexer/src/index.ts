// @quarry/indexer: consumes content.created and content.deleted events (embedded outbox or Kafka), chunks each
// source's text, embeds only the chunks the vector index lacks, upserts the BM25 and vector
// indexes and records which event version each source comes from, so at-least-once,
// out-of-order delivery always converges to the index of the newest version. Reports lag.
export { indexerSchemas } from './migrations/index.js';
export { createIndexHandler, type IndexHandler, type IndexHandlerDeps, type IndexReport } from './handler.js';
export { startIndexer, type Indexer } from './runtime.js';
export {
  startIndexConsumer,
  INDEXER_CONSUMER,
  isTransientIndexError,
  type IndexConsumer,
  type Lag,
  type LagProbe,
} from './consumer.js';
export { kafkaLagProbe, type KafkaAdminLike } from './kafka-lag.js';
export { kafkaPending, type CommittedOffset, type PartitionWatermarks } from './core/kafka-lag.js';
export { compareEvents, latestPerSource, verdict, versionOf, type Verdict, type Version } from './core/versions.js';
export { loadIndexerConfig, kafkaSecurity, outboxRetentionField, type IndexerConfig } from './config.js';
export type { IndexerDatabase, IndexedSourcesTable } from './store.js';
