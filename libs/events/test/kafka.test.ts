import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import {
  createEmbeddedEventLog,
  createKafkaEventLog,
  eventsSchemas,
  grantEventConsumer,
  startOutboxRelay,
  toDeadLetterMessage,
  toKafkaMessage,
  type DeadLetter,
  type EventLog,
} from '../src/index.js';
import { appendEvents, titleOf, waitFor } from './helpers.js';
import { KafkaDouble, kafkaMessage } from './kafka-double.js';
import { delivered, event, orgId } from './kafka-fixtures.js';

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
