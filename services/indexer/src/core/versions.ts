import type { ContentEventV1 } from '@quarry/events';

/**
 * The version of a source an event carries. Events are ordered by (occurredAt, eventId): a
 * total, deterministic order, so every replica and every replay agrees which of two events for
 * the same source is the newer one, whatever order they were delivered in. `occurredAt` is
 * compared in whole milliseconds (what the producer writes and what PostgreSQL gives back as a
 * Date); equal times fall back to the event id, compared as lowercase text (the byte order
 * PostgreSQL uses for uuid).
 *
 * A deletion (`content.deleted`, recorded as a tombstone) is newer than every creation of its
 * source, whatever the times say: source ids are never reused, so nothing may index a deleted
 * source again — not a redelivered or replayed `content.created`, not one stamped later by a
 * producer whose clock runs ahead.
 */
export interface Version {
  readonly occurredAtMs: number;
  readonly eventId: string;
  /** A deletion (tombstone). */
  readonly deleted: boolean;
}

export function versionOf(value: {
  occurredAt: string | Date;
  eventId: string;
  /** An event's type: `content.deleted` is a deletion. */
  type?: string;
  /** A recorded row: whether it is a tombstone. */
  deleted?: boolean;
}): Version {
  const occurredAtMs = value.occurredAt instanceof Date ? value.occurredAt.getTime() : Date.parse(value.occurredAt);
  if (!Number.isFinite(occurredAtMs)) throw new RangeError(`event ${value.eventId}: occurredAt is not a valid time`);
  const deleted = value.deleted === true || value.type === 'content.deleted';
  return { occurredAtMs, eventId: value.eventId.toLowerCase(), deleted };
}

/** Negative when `a` is older than `b`, 0 for the same version, positive when newer. */
function compareVersions(a: Version, b: Version): number {
  if (a.deleted !== b.deleted) return a.deleted ? 1 : -1;
  if (a.occurredAtMs !== b.occurredAtMs) return a.occurredAtMs < b.occurredAtMs ? -1 : 1;
  return a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0;
}

export function compareEvents(a: ContentEventV1, b: ContentEventV1): number {
  return compareVersions(versionOf(a), versionOf(b));
}

/** One indexed source: the identity its chunks and its indexed_sources row are keyed by. */
export function sourceKeyOf(event: { orgId: string; sourceTable: string; sourceId: string }): string {
  return JSON.stringify([event.orgId.toLowerCase(), event.sourceTable, event.sourceId]);
}

/**
 * The newest event per (orgId, sourceTable, sourceId) of a batch, in key order (so the work a
 * batch does never depends on delivery order). Older versions and duplicate copies are dropped:
 * applying them would only be undone by the newest one.
 */
export function latestPerSource<E extends ContentEventV1>(events: readonly E[]): E[] {
  const newest = new Map<string, E>();
  for (const event of events) {
    const key = sourceKeyOf(event);
    const seen = newest.get(key);
    if (!seen || compareEvents(event, seen) > 0) newest.set(key, event);
  }
  return [...newest.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e);
}

/**
 * What to do with an incoming event given the version recorded for its source:
 * - `apply`: nothing recorded, or the event is newer: index it and record it;
 * - `recheck`: it is the recorded version itself (a re-delivery): compare the index with it
 *   (hash reads only, nothing embedded when intact) so an index lost or rebuilt behind the
 *   recorded state is repaired by replaying the log;
 * - `stale`: older than the recorded version: skip it, or a late old version would undo a newer one.
 *
 * For a deletion, `apply` and `recheck` both mean: remove every chunk of the source (again);
 * a creation is always `stale` once its source has a tombstone.
 */
export type Verdict = 'apply' | 'recheck' | 'stale';

export function verdict(recorded: Version | undefined, incoming: Version): Verdict {
  if (!recorded) return 'apply';
  const order = compareVersions(incoming, recorded);
  return order > 0 ? 'apply' : order === 0 ? 'recheck' : 'stale';
}
