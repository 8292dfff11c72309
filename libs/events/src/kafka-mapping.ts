import { ContentEventV1Schema } from './content-event.js';
import type { DeliveredEvent } from './port.js';

// The subset of kafkajs' types this package relies on, spelled out so the mapping is pure,
// tested offline, and the adapter can be handed a test double at the kafkajs object boundary.

export type KafkaHeaderValue = Buffer | string | (Buffer | string)[] | undefined;
/** A message as `producer.send` takes it. */
export interface KafkaMessageOut {
  key: string;
  value: string;
  headers: Record<string, string>;
}
/** A message as `eachBatch` hands it over. */
export interface KafkaMessageIn {
  key: Buffer | null;
  value: Buffer | null;
  headers?: Record<string, KafkaHeaderValue>;
  offset: string;
}

/** kafkajs producer options: idempotent (no duplicates from its own retries) and in order. */
export const PRODUCER_CONFIG = { idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false } as const;
/** `acks: -1` (all in-sync replicas): the relay only moves its offset once Kafka has the events durably. */
export const PRODUCER_ACKS = -1;

/** The Kafka message for an event: key = org id (one partition per org: order per tenant). */
export function toKafkaMessage(delivered: DeliveredEvent): KafkaMessageOut {
  const { event } = delivered;
  const headers: Record<string, string> = {
    'event-id': event.eventId,
    'event-type': event.type,
    'schema-version': String(event.schemaVersion),
  };
  const traceparent = delivered.headers.traceparent;
  if (traceparent) headers.traceparent = traceparent;
  return { key: event.orgId, value: JSON.stringify(event), headers };
}

/**
 * The `producer.send` records that relay a batch of outbox events, in their order: each event
 * goes to the topic named by its type (`content.created`, `content.deleted`), one record per
 * run of consecutive events of one topic. `topic` sends everything to that one topic instead.
 */
export function toProducerRecords(batch: readonly DeliveredEvent[], topic?: string) {
  const records: { topic: string; acks: number; messages: KafkaMessageOut[] }[] = [];
  for (const delivered of batch) {
    const target = topic ?? delivered.event.type;
    const last = records.at(-1);
    if (last?.topic === target) last.messages.push(toKafkaMessage(delivered));
    else records.push({ topic: target, acks: PRODUCER_ACKS, messages: [toKafkaMessage(delivered)] });
  }
  return records;
}

function headerText(value: KafkaHeaderValue): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}

/**
 * What a handler receives for a consumed message; null when the value is not a valid v1 event
 * or its key is not its org (such a message is dead-lettered at once: retrying cannot fix it).
 */
export function fromKafkaMessage(topic: string, partition: number, message: KafkaMessageIn): DeliveredEvent | null {
  let json: unknown;
  try {
    json = JSON.parse(message.value?.toString() ?? '');
  } catch {
    return null;
  }
  const parsed = ContentEventV1Schema.safeParse(json);
  const key = message.key?.toString() ?? '';
  if (!parsed.success || parsed.data.orgId !== key) return null;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    const text = headerText(value);
    if (text !== undefined) headers[name] = text;
  }
  return { offset: `${partition}:${message.offset}`, topic, key, headers, event: parsed.data };
}

/** The dead-letter message: the original key, value and headers, plus why and where it failed. */
export function toDeadLetterMessage(
  topic: string,
  partition: number,
  message: KafkaMessageIn,
  failure: { consumer: string; attempts: number; error: string },
): KafkaMessageOut {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    const text = headerText(value);
    if (text !== undefined) headers[name] = text;
  }
  Object.assign(headers, {
    'dlt-original-topic': topic,
    'dlt-original-partition': String(partition),
    'dlt-original-offset': message.offset,
    'dlt-consumer': failure.consumer,
    'dlt-attempts': String(failure.attempts),
    'dlt-error': failure.error,
  });
  return { key: message.key?.toString() ?? '', value: message.value?.toString() ?? '', headers };
}

/** The offset to commit after `offset` was processed: Kafka commits the next one to read. */
export function nextOffset(offset: string): string {
  return (BigInt(offset) + 1n).toString();
}
