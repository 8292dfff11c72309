// @quarry/events: the content pipeline's events. Producers append versioned events to the
// transactional outbox in their own transaction (appendContentEvent); consumers subscribe
// through the EventLog port, served by the outbox itself (embedded) or by Kafka.
export { eventsSchemas } from './migrations/index.js';
export {
  appendContentEvent,
  appendContentEvents,
  appendContentDeletedEvents,
  ContentCreatedV1Schema,
  ContentDeletedV1Schema,
  CONTENT_CREATED_TOPIC,
  CONTENT_DELETED_TOPIC,
} from './content-event.js';
export type {
  ContentCreatedV1,
  ContentDeletedV1,
  ContentDeletedInput,
  ContentEventV1,
  ContentEventInput,
  EventHeaders,
} from './content-event.js';
export type { EventLog, SubscribeOptions, Subscription, DeliveredEvent, DeadLetter } from './port.js';
export { createEmbeddedEventLog } from './embedded.js';
export type { EmbeddedEventLogDeps } from './embedded.js';
export { toDeliveredEvent } from './outbox-record.js';
export type { OutboxRecord } from './outbox-record.js';
export { grantEventConsumer, consumerLag, isConsumerActive, rewindConsumer } from './consumer-admin.js';
export { compactOutbox, startOutboxCompaction, DEFAULT_OUTBOX_RETENTION_MS } from './compaction.js';
export type { CompactOutboxOptions, OutboxCompaction, OutboxCompactionDeps } from './compaction.js';
export { createKafkaEventLog, startOutboxRelay, connectKafka, kafkaClientConfig, type KafkaSecurity } from './kafka.js';
export type {
  KafkaClient,
  KafkaProducerLike,
  KafkaConsumerLike,
  KafkaBatchPayload,
  KafkaEventLogDeps,
  OutboxRelayDeps,
} from './kafka.js';
export {
  toKafkaMessage,
  toProducerRecords,
  fromKafkaMessage,
  toDeadLetterMessage,
  nextOffset,
} from './kafka-mapping.js';
export type { KafkaMessageIn, KafkaMessageOut, KafkaHeaderValue } from './kafka-mapping.js';
export { outboxHead, advanceConsumer } from './consumer-offsets.js';
