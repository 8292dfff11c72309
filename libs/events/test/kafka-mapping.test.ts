import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  fromKafkaMessage,
  nextOffset,
  toDeadLetterMessage,
  toKafkaMessage,
  toProducerRecords,
  type ContentDeletedV1,
  type DeliveredEvent,
} from '../src/index.js';
import { delivered, event, orgId } from './kafka-fixtures.js';
import { kafkaMessage } from './kafka-double.js';

describe('Kafka message mapping (offline)', () => {
  it('keys each message by org and carries event type, schema version, event id and traceparent headers', () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(
      toKafkaMessage(delivered(1, { traceparent, 'event-type': 'content.created', 'schema-version': '1' })),
    ).toEqual({
      key: orgId,
      value: JSON.stringify(event(1)),
      headers: {
        'event-id': '00000000-0000-4000-8000-000000000001',
        'event-type': 'content.created',
        'schema-version': '1',
        traceparent,
      },
    });
    expect(toKafkaMessage(delivered(2)).headers).not.toHaveProperty('traceparent');
  });

  it('relays a batch as one send to content.created with acks from all replicas, in order', () => {
    const records = toProducerRecords([delivered(1), delivered(2), delivered(3)]);
    expect(records).toHaveLength(1);
    const [record] = records;
    expect(record!.topic).toBe('content.created');
    expect(record!.acks).toBe(-1);
    expect(record!.messages.map((m) => JSON.parse(m.value).eventId)).toEqual([1, 2, 3].map((n) => event(n).eventId));
  });

  it('relays content.deleted to its own topic, one record per run of a topic, in log order', () => {
    const deleted = (n: number): DeliveredEvent => {
      const { sourceTable, sourceId, orgId: org } = event(n);
      const gone: ContentDeletedV1 = {
        schemaVersion: 1,
        eventId: `00000000-0000-4000-9000-00000000000${n}`,
        type: 'content.deleted',
        orgId: org,
        sourceTable,
        sourceId,
        occurredAt: '2026-11-21T23:31:00.000Z',
      };
      return { offset: String(n), topic: 'content.deleted', key: org, headers: {}, event: gone };
    };
    const records = toProducerRecords([delivered(1), delivered(2), deleted(1), delivered(3)]);
    expect(records.map((r) => [r.topic, r.messages.length])).toEqual([
      ['content.created', 2],
      ['content.deleted', 1],
      ['content.created', 1],
    ]);
    expect(records[1]!.messages[0]!.headers['event-type']).toBe('content.deleted');
    // A consumed content.deleted message decodes to the deletion, keyed by its org.
    expect(fromKafkaMessage('content.deleted', 0, kafkaMessage(7, records[1]!.messages[0]!))?.event).toEqual(
      deleted(1).event,
    );
    expect(toProducerRecords([delivered(1), deleted(2)], 'elsewhere').map((r) => r.topic)).toEqual(['elsewhere']);
  });

  it('decodes a consumed message and rejects undecodable ones or a key that is not the org', () => {
    const message = kafkaMessage(41, toKafkaMessage(delivered(1, { traceparent: 't' })));
    expect(fromKafkaMessage('content.created', 3, message)).toEqual({
      offset: '3:41',
      topic: 'content.created',
      key: orgId,
      headers: {
        'event-id': event(1).eventId,
        'event-type': 'content.created',
        'schema-version': '1',
        traceparent: 't',
      },
      event: event(1),
    });
    expect(fromKafkaMessage('content.created', 0, { ...message, value: Buffer.from('{not json') })).toBeNull();
    expect(fromKafkaMessage('content.created', 0, { ...message, key: Buffer.from(randomUUID()) })).toBeNull();
    expect(
      fromKafkaMessage('content.created', 0, {
        ...message,
        value: Buffer.from(JSON.stringify({ ...event(1), schemaVersion: 2 })),
      }),
    ).toBeNull();
  });

  it('builds dead letters with the original key, value and headers plus the failure', () => {
    const message = kafkaMessage(7, toKafkaMessage(delivered(1)));
    expect(
      toDeadLetterMessage('content.created', 2, message, { consumer: 'indexer', attempts: 5, error: 'Error: boom' }),
    ).toEqual({
      key: orgId,
      value: JSON.stringify(event(1)),
      headers: {
        'event-id': event(1).eventId,
        'event-type': 'content.created',
        'schema-version': '1',
        'dlt-original-topic': 'content.created',
        'dlt-original-partition': '2',
        'dlt-original-offset': '7',
        'dlt-consumer': 'indexer',
        'dlt-attempts': '5',
        'dlt-error': 'Error: boom',
      },
    });
    expect(nextOffset('9007199254740993')).toBe('9007199254740994');
  });
});
