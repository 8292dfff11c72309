import { createDb } from '@quarry/db';
import {
  connectKafka,
  createEmbeddedEventLog,
  createKafkaEventLog,
  DEFAULT_OUTBOX_RETENTION_MS,
  startOutboxCompaction,
  startOutboxRelay,
  type EventLog,
  type KafkaClient,
  type KafkaSecurity,
} from '@quarry/events';
import { openSearchBackends, type SearchBackends, type SearchBackendsConfig } from '@quarry/search-index';
import { serveMetrics, serviceMetrics, type RunningService, type ServiceOptions } from '@quarry/telemetry';
import { INDEXER_CONSUMER, startIndexConsumer, type Lag, type LagProbe } from './consumer.js';
import { kafkaLagProbe, type KafkaAdminLike } from './kafka-lag.js';

/** What connectKafka returns is a kafkajs `Kafka`, which also has admin() (not in @quarry/events' KafkaClient). */
type KafkaWithAdmin = KafkaClient & {
  admin(): KafkaAdminLike & { connect(): Promise<void>; disconnect(): Promise<void> };
};

/** Where the indexes come from: shared by the caller, or opened from the configuration. */
type IndexerIndexes =
  | {
      /** Opened by the caller and shared with the search service (`quarry start`); never closed here. */
      backends: Pick<SearchBackends, 'bm25' | 'vectors' | 'embedder'> & Partial<Pick<SearchBackends, 'describe'>>;
      search?: never;
    }
  | {
      backends?: never;
      /** Which indexes to open (its own process); closed with the indexer. */
      search: SearchBackendsConfig;
    };

export type IndexerOptions = ServiceOptions &
  IndexerIndexes & {
    /** The indexer role's connection: a member of quarry_event_consumer, RLS applies. */
    databaseUrl: string;
    /**
     * Consume content.created from Kafka (consumer group `indexer`) instead of the outbox table,
     * and with `relay` also copy outbox rows to Kafka from this process.
     */
    kafka?: { brokers: string; security: KafkaSecurity; relay: boolean };
    /** Most events per batch. Default 500 (INDEXER_BATCH_SIZE in consumer.ts). */
    batchSize?: number;
    /** The embedded offset row or Kafka consumer group. Default `indexer` (what `quarry reindex` rewinds). */
    consumer?: string;
    /** How often the lag gauges are refreshed. Default 5 s. */
    lagIntervalMs?: number;
    /**
     * How long the outbox keeps events every consumer has passed (QUARRY_OUTBOX_RETENTION);
     * this process compacts it in the background. Default 7 days.
     */
    outboxRetentionMs?: number;
    /** Time between compactions (QUARRY_OUTBOX_COMPACTION_INTERVAL); the first runs at start. Default 10 minutes. */
    outboxCompactionIntervalMs?: number;
  };

export interface Indexer extends RunningService {
  /** Events not yet indexed, and the age of the oldest. */
  lag(): Promise<Lag>;
  /** Which event log and indexes it runs on, for the start-up log. */
  describe: { eventLog: 'kafka' | 'outbox'; relay: boolean } & Partial<SearchBackends['describe']>;
}

/**
 * The indexer: the search indexes, the event log (the outbox table, or Kafka with the
 * outbox→Kafka relay), the consumer, and its metrics. Used by `main.ts` (its own process,
 * /metrics on HOST:METRICS_PORT), by `quarry start` (indexes shared with search) and by
 * `quarry reindex`. It answers no calls, so it has no address. close() stops consuming first
 * (the batch in flight finishes and its offset is stored), then releases in reverse order.
 */
export async function startIndexer(options: IndexerOptions): Promise<Indexer> {
  const { logger } = options;
  const closers: Array<() => Promise<unknown>> = [];
  const close = async () => {
    for (const fn of closers.splice(0).reverse())
      await fn().catch((err: unknown) => logger.error({ err }, 'error while closing'));
  };
  try {
    const metrics = serviceMetrics('indexer', options);
    const served = await serveMetrics(options.host, options.metricsPort, metrics);
    closers.push(() => served.close());

    let backends: Pick<SearchBackends, 'bm25' | 'vectors' | 'embedder'> & Partial<Pick<SearchBackends, 'describe'>>;
    if (options.search) {
      const opened = await openSearchBackends(options.search);
      closers.push(() => opened.close());
      backends = opened;
    } else {
      backends = options.backends;
    }

    const db = createDb({ connectionString: options.databaseUrl, applicationName: 'quarry-indexer', max: 6 });
    closers.push(() => db.destroy());
    const onError = (err: unknown) => logger.warn({ err }, 'event log error (retrying)');
    const outbox = createEmbeddedEventLog({ db, connectionString: options.databaseUrl, onError });
    closers.push(() => outbox.close());

    let eventLog: EventLog = outbox;
    let lagProbe: LagProbe | undefined;
    const { kafka: kafkaOptions } = options;
    if (kafkaOptions) {
      const kafka = (await connectKafka(
        kafkaOptions.brokers,
        'quarry-indexer',
        kafkaOptions.security,
      )) as KafkaWithAdmin;
      const admin = kafka.admin();
      await admin.connect();
      closers.push(() => admin.disconnect());
      const consumer = options.consumer ?? INDEXER_CONSUMER;
      lagProbe = kafkaLagProbe({ admin, groupId: consumer });
      const kafkaLog = createKafkaEventLog({ kafka, onError });
      closers.push(() => kafkaLog.close());
      eventLog = kafkaLog;
      if (kafkaOptions.relay) {
        const relay = await startOutboxRelay({ outbox, kafka });
        closers.push(() => relay.close());
      }
    }

    const consumer = await startIndexConsumer({
      db,
      eventLog,
      backends,
      logger,
      metrics,
      consumer: options.consumer,
      batchSize: options.batchSize,
      lagIntervalMs: options.lagIntervalMs,
      lagProbe,
    });
    closers.push(() => consumer.close());

    // This process reads the outbox (as the indexer or the Kafka relay), so it also compacts it.
    const retentionMs = options.outboxRetentionMs ?? DEFAULT_OUTBOX_RETENTION_MS;
    const compaction = startOutboxCompaction({
      db,
      retentionMs,
      intervalMs: options.outboxCompactionIntervalMs,
      onCompacted: (removed) => {
        if (removed > 0) logger.info({ removed, retentionMs }, 'outbox compacted');
      },
      onError: (err) => logger.warn({ err }, 'outbox compaction failed (retried at the next run)'),
    });
    closers.push(() => compaction.close());
    const describe = {
      eventLog: kafkaOptions ? ('kafka' as const) : ('outbox' as const),
      relay: Boolean(kafkaOptions?.relay),
      ...backends.describe,
    };
    logger.info(describe, 'indexer consuming content events');
    return { metricsPort: served.port, describe, lag: consumer.lag, close };
  } catch (error) {
    await close();
    throw error;
  }
}
