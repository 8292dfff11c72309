import { afterAll, beforeAll, describe, it, jest } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import {
  connectKafka,
  createEmbeddedEventLog,
  createKafkaEventLog,
  eventsSchemas,
  grantEventConsumer,
  startOutboxRelay,
  type EventLog,
  type KafkaClient,
  type KafkaConsumerLike,
  type Subscription,
} from '../src/index.js';
import { eventLogContract } from './contract.js';
import { appendEvents } from './helpers.js';

// The same contract as the embedded adapter, against a real Kafka: events go through the real
// outbox and relay. Runs only when KAFKA_BROKERS is set (this machine cannot run Kafka);
// offline, kafka.test.ts covers the exact messages handed to kafkajs.
const brokers = process.env.KAFKA_BROKERS;

if (!brokers) {
  describe('EventLog contract: kafka', () => {
    it.skip('skipped: KAFKA_BROKERS is not set (no Kafka reachable); set it to run this suite against a real broker', () =>
      undefined);
  });
} else {
  jest.setTimeout(120_000); // group joins and rebalances take seconds on a real broker
  let database: TestDatabase;
  let kafka: KafkaClient;
  let outbox: EventLog;
  let relay: Subscription;
  let dltReader: KafkaConsumerLike;
  const logs: EventLog[] = [];
  const deadLetters: Array<{ consumer: string; key: string; eventId: string }> = [];

  beforeAll(async () => {
    database = await createTestDatabase({ schemas: [...eventsSchemas] });
    await grantEventConsumer(database.admin, database.appRole);
    // A managed cluster: the same TLS/SASL variables the indexer reads.
    const {
      KAFKA_TLS,
      KAFKA_SASL_MECHANISM: mechanism,
      KAFKA_SASL_USERNAME: username,
      KAFKA_SASL_PASSWORD: password,
    } = process.env;
    const sasl =
      mechanism && username && password
        ? { mechanism: mechanism as 'plain' | 'scram-sha-256' | 'scram-sha-512', username, password }
        : undefined;
    kafka = await connectKafka(brokers, 'quarry-contract-test', {
      tls: KAFKA_TLS === 'true',
      ...(sasl ? { sasl } : {}),
    });
    // Topics: created if missing (the producer does not auto-create them).
    const admin = (
      kafka as unknown as {
        admin(): { connect(): Promise<void>; createTopics(o: unknown): Promise<boolean>; disconnect(): Promise<void> };
      }
    ).admin();
    await admin.connect();
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        { topic: 'content.created', numPartitions: 3 },
        { topic: 'content.created.dlt', numPartitions: 1 },
      ],
    });
    await admin.disconnect();
    outbox = createEmbeddedEventLog({ db: database.app, connectionString: database.appUrl, pollIntervalMs: 1_000 });
    // Each run uses a new database, so the relay starts at outbox id 0; consumers filter by org.
    relay = await startOutboxRelay({ outbox, kafka, consumer: 'kafka-relay' });
    dltReader = kafka.consumer({ groupId: `contract-dlt-${process.pid}-${Date.now()}` });
    await dltReader.connect();
    await dltReader.subscribe({ topics: ['content.created.dlt'], fromBeginning: true });
    await dltReader.run({
      autoCommit: false,
      eachBatchAutoResolve: true,
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) {
          const header = (name: string) => m.headers?.[name]?.toString() ?? '';
          deadLetters.push({
            consumer: header('dlt-consumer'),
            key: m.key?.toString() ?? '',
            eventId: header('event-id'),
          });
        }
      },
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(logs.map((l) => l.close()));
    await relay?.close();
    await dltReader?.disconnect();
    await outbox?.close();
    await database?.drop();
  });

  eventLogContract('kafka (outbox relay + consumer group)', () => ({
    newLog: () => {
      const log = createKafkaEventLog({ kafka });
      logs.push(log);
      return log;
    },
    publish: (orgId, titles) => appendEvents(database.app, orgId, titles),
    deadLettered: async (consumer, orgId) => {
      await new Promise((r) => setTimeout(r, 200));
      return deadLetters.filter((d) => d.consumer === consumer && d.key === orgId).map((d) => d.eventId);
    },
    timeoutMs: 60_000,
  }));
}
