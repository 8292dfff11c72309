import { CONTENT_CREATED_TOPIC, CONTENT_DELETED_TOPIC } from './content-event.js';
import { deliver, DeliveryAborted, errorText, notifyDeadLetter } from './delivery.js';
import {
  fromKafkaMessage,
  nextOffset,
  PRODUCER_ACKS,
  PRODUCER_CONFIG,
  toDeadLetterMessage,
  toProducerRecords,
  type KafkaMessageIn,
  type KafkaMessageOut,
} from './kafka-mapping.js';
import type { DeliveredEvent, EventLog, SubscribeOptions, Subscription } from './port.js';

// The kafkajs objects this package uses (structurally): `new Kafka(...)` satisfies KafkaClient.
export interface KafkaProducerLike {
  connect(): Promise<void>;
  send(record: { topic: string; acks?: number; messages: KafkaMessageOut[] }): Promise<unknown>;
  disconnect(): Promise<void>;
}
export interface KafkaBatchPayload {
  batch: { topic: string; partition: number; messages: KafkaMessageIn[] };
  resolveOffset(offset: string): void;
  heartbeat(): Promise<void>;
  isRunning(): boolean;
  isStale(): boolean;
}
export interface KafkaConsumerLike {
  connect(): Promise<void>;
  subscribe(options: { topics: string[]; fromBeginning?: boolean }): Promise<void>;
  run(options: {
    autoCommit: boolean;
    eachBatchAutoResolve: boolean;
    eachBatch(payload: KafkaBatchPayload): Promise<void>;
  }): Promise<void>;
  commitOffsets(offsets: Array<{ topic: string; partition: number; offset: string }>): Promise<void>;
  disconnect(): Promise<void>;
}
export interface KafkaClient {
  producer(config: typeof PRODUCER_CONFIG): KafkaProducerLike;
  consumer(config: { groupId: string }): KafkaConsumerLike;
}

/**
 * How the client reaches the brokers. Managed Kafka (and any cluster that is not on a private
 * network) wants TLS and SASL; both are off when omitted (plaintext, no authentication).
 */
export interface KafkaSecurity {
  /** TLS: `true` trusts the system's CAs; `{ ca }` trusts these PEM certificates instead. */
  tls?: boolean | { ca: string };
  sasl?: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string };
}

/** The kafkajs `new Kafka(config)` for `brokers` (KAFKA_BROKERS, comma-separated) and `security`. */
export function kafkaClientConfig(brokers: string, clientId: string, security: KafkaSecurity = {}) {
  const { tls, sasl } = security;
  return {
    clientId,
    brokers: brokers
      .split(',')
      .map((b) => b.trim())
      .filter(Boolean),
    ...(tls ? { ssl: tls === true ? true : { ca: [tls.ca] } } : {}),
    ...(sasl ? { sasl: { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password } } : {}),
  };
}

/**
 * A kafkajs client (see kafkaClientConfig). kafkajs is loaded only here, when Kafka is
 * configured, so the embedded default needs nothing else installed.
 */
export async function connectKafka(
  brokers: string,
  clientId = 'quarry',
  security: KafkaSecurity = {},
): Promise<KafkaClient> {
  const moduleName = 'kafkajs';
  const kafkajs = (await import(moduleName)) as {
    Kafka: new (config: ReturnType<typeof kafkaClientConfig>) => KafkaClient;
  };
  return new kafkajs.Kafka(kafkaClientConfig(brokers, clientId, security));
}

export interface KafkaEventLogDeps {
  kafka: KafkaClient;
  /** The topics consumed. Default `content.created` and `content.deleted`. */
  topics?: readonly string[];
  /** Default: `<topic>.dlt` of the topic the message came from (`content.created.dlt`, `content.deleted.dlt`). */
  deadLetterTopic?: string;
  /** Told about errors the subscription survives (e.g. an onDeadLetter hook that threw). */
  onError?: (error: unknown) => void;
}

type Item = { message: KafkaMessageIn; delivered: DeliveredEvent };

/**
 * The Kafka event log: one consumer group per consumer name, offsets committed by hand only
 * after the handler succeeded, poison messages to the dead-letter topic after maxAttempts
 * (through an idempotent producer), then committed so the partition keeps moving.
 */
export function createKafkaEventLog(deps: KafkaEventLogDeps): EventLog {
  const topics = [...(deps.topics ?? [CONTENT_CREATED_TOPIC, CONTENT_DELETED_TOPIC])];
  const deadLetterTopicOf = (topic: string) => deps.deadLetterTopic ?? `${topic}.dlt`;
  const onError = deps.onError ?? (() => undefined);
  const subscriptions = new Set<Subscription>();

  async function subscribe(options: SubscribeOptions): Promise<Subscription> {
    const batchSize = options.batchSize ?? 100;
    const maxAttempts = options.maxAttempts ?? 5;
    const retryDelayMs = options.retryDelayMs ?? 200;
    let closed = false;
    const producer = deps.kafka.producer(PRODUCER_CONFIG);
    const consumer = deps.kafka.consumer({ groupId: options.consumer });
    await producer.connect();
    await consumer.connect();
    await consumer.subscribe({ topics, fromBeginning: true });

    async function eachBatch({
      batch,
      resolveOffset,
      heartbeat,
      isRunning,
      isStale,
    }: KafkaBatchPayload): Promise<void> {
      const { partition } = batch;
      const commit = async (message: KafkaMessageIn) => {
        await consumer.commitOffsets([{ topic: batch.topic, partition, offset: nextOffset(message.offset) }]);
        resolveOffset(message.offset);
      };
      const deadLetter = async (
        message: KafkaMessageIn,
        delivered: DeliveredEvent | null,
        attempts: number,
        error: string,
      ) => {
        await producer.send({
          topic: deadLetterTopicOf(batch.topic),
          acks: PRODUCER_ACKS,
          messages: [
            toDeadLetterMessage(batch.topic, partition, message, { consumer: options.consumer, attempts, error }),
          ],
        });
        notifyDeadLetter(
          options.onDeadLetter,
          {
            consumer: options.consumer,
            offset: `${partition}:${message.offset}`,
            topic: batch.topic,
            key: message.key?.toString() ?? '',
            event: delivered?.event ?? null,
            attempts,
            error,
          },
          onError,
        );
      };
      let pending: Item[] = [];
      const flush = async () => {
        const items = pending;
        pending = [];
        await deliver(items, {
          handler: (events) => options.handler(events.map((i) => i.delivered)),
          commit: (last) => commit(last.message),
          deadLetter: (item, attempts, error) => deadLetter(item.message, item.delivered, attempts, errorText(error)),
          maxAttempts,
          retryDelayMs,
          isTransient: options.isTransient,
          isClosed: () => closed || !isRunning() || isStale(),
          // Keep the group membership alive while backing off between retries.
          sleep: async (ms) => {
            await new Promise((r) => setTimeout(r, ms));
            await heartbeat();
          },
        });
        await heartbeat();
      };
      try {
        for (const message of batch.messages) {
          if (closed || !isRunning() || isStale()) break;
          const delivered = fromKafkaMessage(batch.topic, partition, message);
          if (!delivered) {
            await flush();
            await deadLetter(message, null, 1, 'invalid message: not a content.created v1 event keyed by its org');
            await commit(message);
            continue;
          }
          pending.push({ message, delivered });
          if (pending.length >= batchSize) await flush();
        }
        if (!closed && isRunning() && !isStale()) await flush();
      } catch (error) {
        // Closing (or a rebalance) mid-retry: leave the rest uncommitted for redelivery.
        if (!(error instanceof DeliveryAborted)) throw error;
      }
    }

    await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, eachBatch });
    const subscription: Subscription = {
      async close() {
        closed = true;
        subscriptions.delete(subscription);
        await consumer.disconnect();
        await producer.disconnect();
      },
    };
    subscriptions.add(subscription);
    return subscription;
  }

  return {
    subscribe,
    async close() {
      await Promise.all([...subscriptions].map((s) => s.close()));
    },
  };
}

export interface OutboxRelayDeps {
  /** The embedded event log (the outbox). */
  outbox: EventLog;
  kafka: KafkaClient;
  /** Consumer name of the relay's outbox offset. Default `kafka-relay`. */
  consumer?: string;
  batchSize?: number;
  topic?: string;
}

/**
 * Move outbox events to Kafka in order. The relay is an outbox consumer that never gives up
 * (maxAttempts Infinity): while Kafka is down, rows wait in the outbox and the relay retries
 * with backoff. A crash after `send` but before the offset is stored re-publishes a batch;
 * that is harmless because consumers are idempotent (keyed by event id / source id).
 */
export async function startOutboxRelay(deps: OutboxRelayDeps): Promise<Subscription> {
  const producer = deps.kafka.producer(PRODUCER_CONFIG);
  await producer.connect();
  const subscription = await deps.outbox.subscribe({
    consumer: deps.consumer ?? 'kafka-relay',
    batchSize: deps.batchSize ?? 500,
    maxAttempts: Infinity,
    handler: async (batch) => {
      // One send per run of one topic, in log order: a later send starts once the earlier is acknowledged.
      for (const record of toProducerRecords(batch, deps.topic)) await producer.send(record);
    },
  });
  return {
    async close() {
      await subscription.close();
      await producer.disconnect();
    },
  };
}
