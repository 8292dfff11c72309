import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import {
  createEmbeddedEventLog,
  createKafkaEventLog,
  eventsSchemas,
  fromKafkaMessage,
  grantEventConsumer,
  nextOffset,
  startOutboxRelay,
  toDeadLetterMessage,
  toKafkaMessage,
  toProducerRecords,
  type ContentCreatedV1,
  type ContentDeletedV1,
  type DeadLetter,
  type DeliveredEvent,
  type EventLog,
} from '../src/index.js';
import { appendEvents, titleOf, waitFor } from './helpers.js';
import { KafkaDouble, kafkaMessage } from './kafka-double.js';

const orgId = '7b0f3c2e-1d4a-4f6b-9c8d-0e1f2a3b4c5d';
function event(n: number, extra: Partial<ContentCreatedV1> = {}): ContentCreatedV1 {
  return {
    schemaVersion: 1,
    eventId: `00000000-0000-4000-8000-00000000000${n}`,
    type: 'content.created',
    orgId,
    sourceTable: 'research_artifact',
    sourceId: `source-${n}`,
    title: `title ${n}`,
    text: `text ${n}`,
    occurredAt: '2026-11-21T23:30:00.000Z',
    ...extra,
  };
}
const delivered = (
  n: number,
  headers: Record<string, string> = {},
  extra: Partial<ContentCreatedV1> = {},
): DeliveredEvent => ({
  offset: String(n),
  topic: 'content.created',
  key: orgId,
  headers,
  event: event(n, extra),
});

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

describe('Kafka event log adapter (kafkajs test double)', () => {
  it('uses an idempotent producer and a consumer group with manual commits after the handler', async () => {
    const kafka = new KafkaDouble();
    const handled: string[][] = [];
    const log = createKafkaEventLog({ kafka });
    const sub = await log.subscribe({
      consumer: 'indexer',
      handler: async (batch) => {
        expect(kafka.committed).toEqual([]); // nothing committed before the handler finishes
        handled.push(batch.map((e) => e.offset));
      },
    });
    expect(kafka.producerConfigs).toEqual([
      { idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false },
    ]);
    expect(kafka.consumerConfigs).toEqual([{ groupId: 'indexer' }]);
    expect(kafka.subscriptions).toEqual([{ topics: ['content.created', 'content.deleted'], fromBeginning: true }]);
    expect(kafka.runOptions).toEqual([{ autoCommit: false, eachBatchAutoResolve: false }]);

    const resolved = await kafka.feed(
      'content.created',
      0,
      [10, 11, 12].map((o, i) => kafkaMessage(o, toKafkaMessage(delivered(i + 1)))),
    );
    expect(handled).toEqual([['0:10', '0:11', '0:12']]);
    expect(kafka.committed).toEqual([{ topic: 'content.created', partition: 0, offset: '13' }]);
    expect(resolved).toEqual(['12']);
    await sub.close();
  });

  it('sends a poison message to content.created.dlt after maxAttempts and commits past it', async () => {
    const kafka = new KafkaDouble();
    const handled: string[] = [];
    const reported: DeadLetter[] = [];
    let poisonAlone = 0;
    await createKafkaEventLog({ kafka }).subscribe({
      consumer: 'indexer',
      maxAttempts: 3,
      retryDelayMs: 1,
      onDeadLetter: (letter) => {
        expect(kafka.sent).toHaveLength(1); // told once the dead-letter topic has it
        expect(kafka.committed.map((c) => c.offset)).toEqual(['2']); // and before committing past it
        reported.push(letter);
      },
      handler: async (batch) => {
        if (batch.some((e) => titleOf(e) === 'title 2')) {
          if (batch.length === 1) poisonAlone++;
          throw new Error('boom');
        }
        handled.push(...batch.map((e) => e.offset));
      },
    });
    await kafka.feed(
      'content.created',
      1,
      [1, 2, 3].map((n) => kafkaMessage(n, toKafkaMessage(delivered(n)))),
    );
    expect(handled).toEqual(['1:1', '1:3']);
    expect(poisonAlone).toBe(3);
    expect(kafka.sent).toEqual([
      {
        topic: 'content.created.dlt',
        acks: -1,
        messages: [
          toDeadLetterMessage('content.created', 1, kafkaMessage(2, toKafkaMessage(delivered(2))), {
            consumer: 'indexer',
            attempts: 3,
            error: 'Error: boom',
          }),
        ],
      },
    ]);
    expect(kafka.committed.map((c) => c.offset)).toEqual(['2', '3', '4']);
    expect(reported).toEqual([
      {
        consumer: 'indexer',
        offset: '1:2',
        topic: 'content.created',
        key: orgId,
        event: event(2),
        attempts: 3,
        error: 'Error: boom',
      },
    ]);
  });

  it('dead-letters an undecodable message at once', async () => {
    const kafka = new KafkaDouble();
    const handled: string[] = [];
    const reported: DeadLetter[] = [];
    await createKafkaEventLog({ kafka }).subscribe({
      consumer: 'c',
      onDeadLetter: (letter) => reported.push(letter),
      handler: async (b) => void handled.push(...b.map((e) => e.offset)),
    });
    await kafka.feed('content.created', 0, [
      { offset: '0', key: Buffer.from(orgId), value: Buffer.from('garbage') },
      kafkaMessage(1, toKafkaMessage(delivered(1))),
    ]);
    expect(handled).toEqual(['0:1']);
    expect(kafka.sent.map((s) => [s.topic, s.messages[0]?.headers['dlt-attempts']])).toEqual([
      ['content.created.dlt', '1'],
    ]);
    expect(kafka.committed.map((c) => c.offset)).toEqual(['1', '2']);
    expect(reported).toEqual([
      {
        consumer: 'c',
        offset: '0:0',
        topic: 'content.created',
        key: orgId,
        event: null,
        attempts: 1,
        error: 'invalid message: not a content.created v1 event keyed by its org',
      },
    ]);
  });

  it('survives an onDeadLetter hook that throws: the error goes to onError and the partition moves on', async () => {
    const kafka = new KafkaDouble();
    const errors: unknown[] = [];
    const handled: string[] = [];
    await createKafkaEventLog({ kafka, onError: (error) => errors.push(error) }).subscribe({
      consumer: 'c',
      maxAttempts: 1,
      onDeadLetter: () => {
        throw new Error('metrics are broken');
      },
      handler: async (b) => {
        if (b.some((e) => titleOf(e) === 'title 1')) throw new Error('boom');
        handled.push(...b.map((e) => e.offset));
      },
    });
    await kafka.feed(
      'content.created',
      0,
      [1, 2].map((n) => kafkaMessage(n, toKafkaMessage(delivered(n)))),
    );
    expect(handled).toEqual(['0:2']);
    expect(errors).toEqual([new Error('metrics are broken')]);
    expect(kafka.committed.map((c) => c.offset)).toEqual(['2', '3']);
  });
});

describe('outbox relay to Kafka (real PostgreSQL, kafkajs test double)', () => {
  let database: TestDatabase;
  let outbox: EventLog;
  beforeAll(async () => {
    database = await createTestDatabase({ schemas: [...eventsSchemas] });
    await grantEventConsumer(database.admin, database.appRole);
    outbox = createEmbeddedEventLog({ db: database.app, connectionString: database.appUrl, pollIntervalMs: 60_000 });
  });
  afterAll(async () => {
    await outbox?.close();
    await database?.drop();
  });

  it('publishes outbox rows in order, keeps them while Kafka is down, and loses nothing', async () => {
    const kafka = new KafkaDouble();
    kafka.failSends = 3; // Kafka unavailable for the first sends
    const org = randomUUID();
    const ids = await appendEvents(database.app, org, ['k1', 'k2', 'k3']);
    const relay = await startOutboxRelay({ outbox, kafka });
    const published = () => kafka.sent.flatMap((s) => s.messages.map((m) => JSON.parse(m.value).eventId as string));
    await waitFor(() => published().length >= 3, 15_000, 'the relay to publish 3 events');
    const more = await appendEvents(database.app, org, ['k4']);
    await waitFor(() => published().length >= 4, 5_000, 'the relay to publish the 4th event');
    expect(published()).toEqual([...ids, ...more]);
    expect(kafka.sent.every((s) => s.topic === 'content.created' && s.acks === -1)).toBe(true);
    expect(kafka.sent.flatMap((s) => s.messages.map((m) => m.key))).toEqual([org, org, org, org]);
    expect(kafka.producerConfigs).toEqual([
      { idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false },
    ]);
    await relay.close();
  });
});
