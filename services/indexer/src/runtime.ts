import { createDb } from '@quarry/db';
import {
  connectKafka,
  createEmbeddedEventLog,
  createKafkaEventLog,
  startOutboxRelay,
  type EventLog,
  type KafkaClient,
  type Subscription,
} from '@quarry/events';
import { openSearchBackends } from '@quarry/search-index';
import { createMetrics, startMetricsServer, type Logger } from '@quarry/telemetry';
import { kafkaSecurity, type IndexerConfig } from './config.js';
import { INDEXER_CONSUMER, startIndexer, type LagProbe } from './indexer.js';
import { kafkaLagProbe, type KafkaAdminLike } from './kafka-lag.js';

const CONSUMER = INDEXER_CONSUMER;

/** What connectKafka returns is a kafkajs `Kafka`, which also has admin() (not in @quarry/events' KafkaClient). */
type KafkaWithAdmin = KafkaClient & {
  admin(): KafkaAdminLike & { connect(): Promise<void>; disconnect(): Promise<void> };
};

/**
 * The indexer as its own process (main.ts): search backends, the event log (Kafka when
 * KAFKA_BROKERS is set, with the outbox→Kafka relay unless QUARRY_OUTBOX_RELAY=false; else
 * the outbox itself), the consumer and a /metrics server. close() stops consuming first, then
 * releases everything in reverse order.
 */
export async function runIndexer(config: IndexerConfig, logger: Logger) {
  const closers: Array<() => Promise<unknown>> = [];
  const close = async () => {
    for (const fn of closers.reverse())
      await fn().catch((err: unknown) => logger.error({ err }, 'error while closing'));
  };
  try {
    const metrics = createMetrics({ service: 'indexer' });
    const metricsServer = await startMetricsServer({
      registry: metrics.registry,
      host: config.METRICS_HOST,
      port: config.METRICS_PORT,
    });
    closers.push(() => metricsServer.close());

    const backends = await openSearchBackends(config);
    closers.push(() => backends.close());

    const db = createDb({ connectionString: config.DATABASE_URL, applicationName: 'quarry-indexer', max: 6 });
    closers.push(() => db.destroy());
    const onError = (err: unknown) => logger.warn({ err }, 'event log error (retrying)');
    const outbox = createEmbeddedEventLog({ db, connectionString: config.DATABASE_URL, onError });
    closers.push(() => outbox.close());

    let eventLog: EventLog = outbox;
    let lagProbe: LagProbe | undefined;
    let relay: Subscription | undefined;
    if (config.KAFKA_BROKERS) {
      const kafka = (await connectKafka(
        config.KAFKA_BROKERS,
        'quarry-indexer',
        kafkaSecurity(config),
      )) as KafkaWithAdmin;
      const admin = kafka.admin();
      await admin.connect();
      closers.push(() => admin.disconnect());
      lagProbe = kafkaLagProbe({ admin, groupId: CONSUMER });
      eventLog = createKafkaEventLog({ kafka, onError });
      closers.push(() => eventLog.close());
      if (config.QUARRY_OUTBOX_RELAY) {
        relay = await startOutboxRelay({ outbox, kafka });
        closers.push(() => relay!.close());
      }
    }

    const indexer = await startIndexer({
      db,
      eventLog,
      backends,
      logger,
      metrics,
      consumer: CONSUMER,
      batchSize: config.INDEXER_BATCH_SIZE,
      lagProbe,
    });
    closers.push(() => indexer.close());
    return {
      metricsPort: metricsServer.port,
      describe: { eventLog: config.KAFKA_BROKERS ? 'kafka' : 'outbox', relay: Boolean(relay), ...backends.describe },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
