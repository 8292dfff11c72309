import type { ContentCreatedV1, DeliveredEvent } from '../src/index.js';

// The events the Kafka tests send and expect back: content.created number n of one org.

export const orgId = '7b0f3c2e-1d4a-4f6b-9c8d-0e1f2a3b4c5d';
export function event(n: number, extra: Partial<ContentCreatedV1> = {}): ContentCreatedV1 {
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
export const delivered = (
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
