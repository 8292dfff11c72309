import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { ContentCreatedV1 } from '@quarry/events';
import { EmbeddingHttpError } from '@quarry/search-index';
import {
  compareEvents,
  isTransientIndexError,
  kafkaLagProbe,
  kafkaPending,
  latestPerSource,
  verdict,
  versionOf,
  type KafkaAdminLike,
} from '../src/index.js';
import { shuffled } from './helpers.js';

// The pure rules behind idempotent, order-insensitive indexing, and the Kafka lag arithmetic.

const ORG = '0d6f4a52-8c1e-4c53-9d0e-2a4b7f3c1e01';
const event = (sourceId: string, occurredAt: string, eventId = randomUUID(), orgId = ORG): ContentCreatedV1 => ({
  schemaVersion: 1,
  eventId,
  type: 'content.created',
  orgId,
  sourceTable: 'research_artifact',
  sourceId,
  title: sourceId,
  text: `${sourceId} at ${occurredAt}`,
  occurredAt,
});

describe('event order: (occurredAt, eventId)', () => {
  it('orders by time first, whatever the offset notation, then by event id', () => {
    const early = event('s', '2026-01-01T10:00:00.000Z', 'ffffffff-0000-4000-8000-000000000000');
    const sameInstantOtherZone = event('s', '2026-01-01T11:00:00.000+01:00', '00000000-0000-4000-8000-000000000000');
    const later = event('s', '2026-01-01T10:00:00.001Z', '00000000-0000-4000-8000-000000000000');
    expect(compareEvents(early, later)).toBeLessThan(0);
    expect(compareEvents(later, early)).toBeGreaterThan(0);
    // Same instant: the event id breaks the tie (case-insensitively).
    expect(compareEvents(sameInstantOtherZone, early)).toBeLessThan(0);
    expect(compareEvents(early, { ...early, eventId: early.eventId.toUpperCase() })).toBe(0);
  });

  it('is total and deterministic: any permutation sorts to the same sequence', () => {
    const events = Array.from({ length: 40 }, (_, i) => event('s', `2026-01-01T10:00:0${i % 3}.000Z`));
    const sorted = [...events].sort(compareEvents).map((e) => e.eventId);
    for (const seed of [1, 2, 3])
      expect(
        shuffled(events, seed)
          .sort(compareEvents)
          .map((e) => e.eventId),
      ).toEqual(sorted);
  });

  it('refuses an unparseable time', () => {
    expect(() => versionOf({ occurredAt: 'yesterday', eventId: 'x' })).toThrow(/occurredAt/);
  });
});

describe('latestPerSource', () => {
  it('keeps the newest event of each (org, sourceTable, sourceId), in key order, whatever the delivery order', () => {
    const otherOrg = '7b1c9e2d-3f4a-4b5c-8d6e-9f0a1b2c3d4e';
    const a1 = event('a', '2026-01-01T00:00:01Z');
    const a2 = event('a', '2026-01-01T00:00:02Z');
    const b1 = event('b', '2026-01-01T00:00:05Z');
    const aOther = event('a', '2026-01-01T00:00:00Z', undefined, otherOrg);
    const output = { ...event('a', '2026-01-01T00:00:09Z'), sourceTable: 'research_output' as const };
    const expected = latestPerSource([a1, a2, b1, aOther, output]).map((e) => e.eventId);
    expect(new Set(expected)).toEqual(new Set([a2.eventId, b1.eventId, aOther.eventId, output.eventId]));
    for (const seed of [1, 2, 3, 4]) {
      expect(latestPerSource(shuffled([a1, a2, a2, b1, aOther, output, a1], seed)).map((e) => e.eventId)).toEqual(
        expected,
      );
    }
    expect(latestPerSource([])).toEqual([]);
  });
});

describe('verdict: what to do with an event given the recorded version', () => {
  const v = (at: string, id: string) => versionOf({ occurredAt: at, eventId: id });
  const recorded = v('2026-01-01T00:00:05Z', 'bbbbbbbb-0000-4000-8000-000000000000');

  it('applies a first or newer version, rechecks the recorded one, skips an older one', () => {
    expect(verdict(undefined, recorded)).toBe('apply');
    expect(verdict(recorded, v('2026-01-01T00:00:06Z', 'aaaaaaaa-0000-4000-8000-000000000000'))).toBe('apply');
    expect(verdict(recorded, v('2026-01-01T00:00:05Z', 'cccccccc-0000-4000-8000-000000000000'))).toBe('apply');
    expect(verdict(recorded, v('2026-01-01T00:00:05.000+00:00', 'BBBBBBBB-0000-4000-8000-000000000000'))).toBe(
      'recheck',
    );
    expect(verdict(recorded, v('2026-01-01T00:00:05Z', 'aaaaaaaa-0000-4000-8000-000000000000'))).toBe('stale');
    expect(verdict(recorded, v('2026-01-01T00:00:04.999Z', 'ffffffff-0000-4000-8000-000000000000'))).toBe('stale');
  });

  it('applies a deletion over any creation, and makes every creation stale once a tombstone is recorded', () => {
    const deletedAt = (at: string, id: string) => versionOf({ occurredAt: at, eventId: id, type: 'content.deleted' });
    const gone = deletedAt('2026-01-01T00:00:07Z', 'dddddddd-0000-4000-8000-000000000000');
    expect(verdict(undefined, gone)).toBe('apply');
    expect(verdict(recorded, gone)).toBe('apply');
    // Even one stamped before the recorded creation (a producer clock behind).
    expect(verdict(recorded, deletedAt('2026-01-01T00:00:01Z', 'dddddddd-0000-4000-8000-000000000000'))).toBe('apply');
    const tomb = versionOf({ occurredAt: '2026-01-01T00:00:07Z', eventId: gone.eventId, deleted: true });
    expect(verdict(tomb, gone)).toBe('recheck');
    expect(verdict(tomb, recorded)).toBe('stale');
    expect(verdict(tomb, v('2026-01-02T00:00:00Z', 'ffffffff-0000-4000-8000-000000000000'))).toBe('stale');
  });
});

describe('Kafka lag', () => {
  it('sums high watermark minus committed offset over partitions', () => {
    const watermarks = [
      { partition: 0, low: '0', high: '120' },
      { partition: 1, low: '50', high: '80' },
      { partition: 2, low: '10', high: '10' },
    ];
    expect(
      kafkaPending(
        [
          { partition: 0, offset: '100' },
          { partition: 1, offset: '80' },
          { partition: 2, offset: '10' },
        ],
        watermarks,
      ),
    ).toBe(20);
    // Never committed ('-1' or absent): everything from the low watermark is pending.
    expect(kafkaPending([{ partition: 0, offset: '-1' }], watermarks)).toBe(120 + 30);
    // A committed offset that retention already deleted counts from the low watermark; beyond high (topic recreated) as nothing.
    expect(
      kafkaPending(
        [
          { partition: 0, offset: '500' },
          { partition: 1, offset: '3' },
          { partition: 2, offset: '10' },
        ],
        watermarks,
      ),
    ).toBe(30);
    // 64-bit offsets.
    expect(
      kafkaPending(
        [{ partition: 0, offset: '9007199254740993' }],
        [{ partition: 0, low: '0', high: '9007199254741003' }],
      ),
    ).toBe(10);
  });

  it('kafkaLagProbe asks the admin for the group and both topics, sums them, and reports no age', async () => {
    const asked: unknown[] = [];
    // A structural double of a connected kafkajs admin, answering with kafkajs' response shapes.
    const admin: KafkaAdminLike = {
      fetchOffsets: async (options) => {
        asked.push(['fetchOffsets', options]);
        const partitions = [
          { partition: 0, offset: '7', metadata: null },
          { partition: 1, offset: '-1', metadata: null },
        ];
        return [
          { topic: 'content.created', partitions },
          { topic: 'content.deleted', partitions: [{ partition: 0, offset: '1', metadata: null }] },
        ];
      },
      fetchTopicOffsets: async (topic) => {
        asked.push(['fetchTopicOffsets', topic]);
        if (topic === 'content.deleted') return [{ partition: 0, offset: '5', high: '5', low: '0' }];
        return [
          { partition: 0, offset: '10', high: '10', low: '0' },
          { partition: 1, offset: '4', high: '4', low: '2' },
        ];
      },
    };
    const probe = kafkaLagProbe({ admin, groupId: 'indexer' });
    expect(await probe()).toEqual({ pending: 3 + 2 + 4, oldestPendingAgeMs: null });
    expect(asked).toEqual([
      ['fetchOffsets', { groupId: 'indexer', topics: ['content.created', 'content.deleted'] }],
      ['fetchTopicOffsets', 'content.created'],
      ['fetchTopicOffsets', 'content.deleted'],
    ]);
  });
});

describe('which indexing failures are transient (retried without limit, never dead-lettered)', () => {
  it('treats engines and providers being down or overloaded as transient, a provider refusing the input as the event’s fault', () => {
    expect(isTransientIndexError(new Error('connect ECONNREFUSED 127.0.0.1:9200'))).toBe(true);
    expect(isTransientIndexError(new TypeError('fetch failed'))).toBe(true);
    expect(isTransientIndexError(new EmbeddingHttpError(503, 'unavailable'))).toBe(true);
    expect(isTransientIndexError(new EmbeddingHttpError(429, 'slow down'))).toBe(true);
    expect(isTransientIndexError(new EmbeddingHttpError(408, 'timeout'))).toBe(true);
    expect(isTransientIndexError(new EmbeddingHttpError(400, 'input too long'))).toBe(false);
    expect(isTransientIndexError(new EmbeddingHttpError(413, 'payload too large'))).toBe(false);
  });
});
