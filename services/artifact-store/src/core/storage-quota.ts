import type { NewRow } from '../store/schema.js';

/**
 * Storage quotas (docs/adr/0061-per-org-quotas.md), decided from numbers alone: what a row counts
 * against its org's storage, and whether an org's totals after a write are within its limits.
 */

/** An org's storage limits; undefined: none. */
export interface StorageLimits {
  storageBytes?: number;
  artifacts?: number;
}

/** What an org has stored (or what one write adds). */
export interface StorageUse {
  bytes: number;
  items: number;
}

/** A limit a write would pass: the quota, its limit, the use before the write, what the write adds. */
export interface StorageOverrun {
  quota: 'storage_bytes' | 'artifacts';
  limit: number;
  used: number;
  adding: number;
}

const utf8 = (text: string | null | undefined) => (text ? Buffer.byteLength(text, 'utf8') : 0);

/** The bytes an artifact (or report, or document's artifact) counts: its title, content, text and original file. */
export function artifactBytes(
  row: Pick<NewRow<'artifact.research_artifacts'>, 'title' | 'content' | 'content_text'>,
  originalBytes = 0,
): number {
  return utf8(row.title) + utf8(row.content as string) + utf8(row.content_text) + originalBytes;
}

/** The bytes a research output counts: its title, body and summary. */
export function outputBytes(
  row: Pick<NewRow<'artifact.research_outputs'>, 'title' | 'content_size' | 'content_summary'>,
): number {
  return utf8(row.title) + row.content_size + utf8(row.content_summary);
}

/**
 * The limit a write of `adding` passes when the org's totals become `after`; undefined when both
 * hold. Bytes are checked first: a write refused for both names the one an operator most often
 * raises.
 */
export function storageOverrun(
  after: StorageUse,
  adding: StorageUse,
  limits: StorageLimits,
): StorageOverrun | undefined {
  if (limits.storageBytes !== undefined && after.bytes > limits.storageBytes)
    return {
      quota: 'storage_bytes',
      limit: limits.storageBytes,
      used: after.bytes - adding.bytes,
      adding: adding.bytes,
    };
  if (limits.artifacts !== undefined && after.items > limits.artifacts)
    return { quota: 'artifacts', limit: limits.artifacts, used: after.items - adding.items, adding: adding.items };
  return undefined;
}

/** The org's limit for each quota: its own when the operator set one, else the default. */
export function effectiveLimits(
  own: { storage_bytes: string | null; artifacts: string | null } | undefined,
  defaults: StorageLimits,
): StorageLimits {
  const pick = (value: string | null | undefined, fallback: number | undefined) =>
    value === null || value === undefined ? fallback : Number(value);
  return {
    storageBytes: pick(own?.storage_bytes, defaults.storageBytes),
    artifacts: pick(own?.artifacts, defaults.artifacts),
  };
}
